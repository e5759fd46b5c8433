/* sha256.h: SHA-256 digests as lowercase hex, through nettle. */
#ifndef ARIADNE_SHA256_H
#define ARIADNE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ARI_SHA256_HEX 65 /* 64 hex digits and a NUL */

void ari_sha256_hex(const void *data, size_t len, char out[ARI_SHA256_HEX]);
/* Digest of a whole file; returns -1 if it cannot be read. *bytes gets its size. */
int ari_sha256_file(const char *path, char out[ARI_SHA256_HEX], uint64_t *bytes);

#endif
