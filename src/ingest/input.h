/* input.h: a streaming line reader over a file, compressed or not.
 *
 * Opens plain, gzip, zstd (and whatever else libarchive's filters know:
 * bzip2, xz, lz4, ...) files the same way and hands out one line at a time
 * from a bounded buffer, so memory does not grow with the file. Lines are
 * returned NUL-terminated without their "\n" (nor a "\r" before it), in a
 * buffer the caller may modify until the next call. A line longer than the
 * limit, or a NUL byte (binary data), is refused with a clear
 * "name:line: reason" error. Shared by every text reader (Paje, StarPU
 * tasks.rec, dag.dot, CSV).
 *
 * It is also the one byte source of the readers: JSON readers (Chrome
 * traces, Caliper, Hatchet) pull decoded bytes with ari_input_read or load a
 * whole document with ari_input_read_all, the formats sniff a file's first
 * bytes with ari_input_head, and the archive unpacker (archive.c) gets its
 * libarchive reader from ari_libarchive_new. No other file opens
 * libarchive, so every reader takes .gz/.zst alike and obeys the decode cap.
 */
#ifndef ARIADNE_INPUT_H
#define ARIADNE_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

/* Default longest accepted line, in bytes (without the newline). */
#define ARI_INPUT_MAX_LINE ((size_t)1 << 20)

typedef struct ari_input ari_input;

/* Opens path; display_name is what error messages call it (NULL: path).
 * Returns NULL with err set (ARI_E_IO) when the file cannot be read. An
 * empty file is a valid input with no lines. */
ari_input *ari_input_open(const char *path, const char *display_name, ari_error *err);

/* The same over an open file descriptor, read from its current position
 * (the caller keeps ownership of fd and closes it after ari_input_close). */
ari_input *ari_input_open_fd(int fd, const char *display_name, ari_error *err);

/* Sets the longest accepted line (before the first getline). */
void ari_input_set_max_line(ari_input *in, size_t max_line);

/* Writes a copy of every decompressed byte read from now on to f (used to
 * make a seekable copy of a compressed input). NULL stops copying. */
void ari_input_set_tee(ari_input *in, FILE *f);

/* Next line, or NULL at the end of the input or on error (then err is set
 * and ari_input_failed() is non-zero). *len receives the line's length. */
char *ari_input_getline(ari_input *in, size_t *len, ari_error *err);

/* Non-zero once a getline has failed. */
int ari_input_failed(const ari_input *in);

/* 1-based number of the line last returned (0 before the first). */
uint64_t ari_input_lineno(const ari_input *in);

/* Offset, in the decompressed stream, of the start of the line last
 * returned. */
uint64_t ari_input_line_offset(const ari_input *in);

/* Bytes of the file itself (compressed) consumed so far, and its size:
 * their ratio is the progress. */
uint64_t ari_input_bytes_read(const ari_input *in);
uint64_t ari_input_total_bytes(const ari_input *in);

/* Non-zero if the file is compressed (decoded through a filter). */
int ari_input_is_compressed(const ari_input *in);

/* The name used in error messages. */
const char *ari_input_name(const ari_input *in);

/* For a file no reader recognised: -1 with err set ("<name>: truncated
 * gzip stream", ARI_E_INVALID_INPUT) when the first `bytes` of its content
 * cannot be decompressed, so that a damaged file is not reported as an
 * unknown format; 0 when they can (or the file is not compressed). */
int ari_input_check_head(const char *path, const char *name, size_t bytes, ari_error *err);

/* What to tell a user about a failed system call: "the server's disk is
 * full" for ENOSPC and EDQUOT, strerror(errnum) otherwise. */
const char *ari_io_reason(int errnum);

void ari_input_close(ari_input *in);

/* Up to n decoded bytes into buf (bytes a getline buffered come first):
 * their count, 0 at the end of the input, -1 with err set ("name: truncated
 * gzip stream", too_large past the decode cap). Not NUL-terminated. */
long ari_input_read(ari_input *in, char *buf, size_t n, ari_error *err);

/* The whole decoded rest of the input in one malloc'd NUL-terminated buffer
 * (*data, to free; *len without the NUL). max: most bytes accepted (0: no
 * limit beyond the decode cap), more is too_large. 0, or -1 with err set. */
int ari_input_read_all(ari_input *in, size_t max, char **data, size_t *len, ari_error *err);

/* ari_input_open, ari_input_read_all and ari_input_close in one call: the
 * decoded content of path (plain or compressed) for readers that parse a
 * whole document at once. */
int ari_input_load(const char *path, const char *display_name, char **data, size_t *len, ari_error *err);

/* The first n decoded bytes of path into buf: how many (0 for an empty
 * file), or -1 when it cannot be opened or decoded. For format probes. */
long ari_input_head(const char *path, char *buf, size_t n);

/* A libarchive reader (struct archive *) with every decompression filter:
 * with as_archive 0 the "raw" and "empty" formats (one stream, as the
 * readers see it), with 1 the archive formats the import unpacks (tar, GNU
 * tar, zip, 7-Zip). Not opened yet; NULL when out of memory. */
void *ari_libarchive_new(int as_archive);

/* The most bytes one compressed input may decode to (0, the default: no
 * cap), set once at start-up from --max-unpacked: a small .gz of zeros
 * would otherwise fill the disk with a reader's temporary copy, or keep a
 * streaming reader busy for hours. */
void ari_input_set_max_decoded(uint64_t bytes);
/* 0 while the libarchive stream `a` (a struct archive *) of the input
 * `name` has decoded no more than that cap, else -1 with err set
 * (too_large). Readers that drive libarchive themselves call it per block. */
int ari_input_check_decoded(void *a, const char *name, ari_error *err);

#endif
