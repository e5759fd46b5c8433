/* fs.h: file-system helpers shared by the core library and the server. */
#ifndef ARIADNE_FS_H
#define ARIADNE_FS_H

/* Removes a directory and everything below it (symbolic links are removed,
 * never followed); a plain file is unlinked. Best effort: errors are
 * ignored. */
void ari_remove_tree(const char *path);

#endif
