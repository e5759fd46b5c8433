/* sha256.c: SHA-256 digests of buffers and files (nettle). */
#include "util/sha256.h"

#include <nettle/sha2.h>
#include <stdio.h>

static void to_hex(const uint8_t *digest, char out[ARI_SHA256_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 15];
    }
    out[2 * SHA256_DIGEST_SIZE] = '\0';
}

void ari_sha256_hex(const void *data, size_t len, char out[ARI_SHA256_HEX])
{
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    sha256_digest(&ctx, sizeof digest, digest);
    to_hex(digest, out);
}

int ari_sha256_file(const char *path, char out[ARI_SHA256_HEX], uint64_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE];
    static _Thread_local uint8_t buf[1 << 16];
    uint64_t total = 0;
    size_t n;
    sha256_init(&ctx);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        sha256_update(&ctx, n, buf);
        total += n;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed)
        return -1;
    sha256_digest(&ctx, sizeof digest, digest);
    to_hex(digest, out);
    if (bytes)
        *bytes = total;
    return 0;
}
