/* profile_tree_text.h: the text of Hatchet's GraphFrame.tree() for the
 * GET /traces/{id}/tree endpoint, rendered from the store's tree rows
 * (store/profile_queries.h): "<value> <name>[ <file>]" per node, values
 * with `precision` decimals, indented with box-drawing characters. */
#ifndef ARIADNE_PROFILE_TREE_TEXT_H
#define ARIADNE_PROFILE_TREE_TEXT_H

#include "store/profile_queries.h"
#include "util/error.h"

/* *text_out is malloc'd (NULL on error). Errors: invalid_parameter for a
 * precision outside 0..17, too_large past 256 MiB, nomem. */
int ari_profile_tree_text(const ari_profile_tree_rows *t, int precision, char **text_out, ari_error *err);

#endif
