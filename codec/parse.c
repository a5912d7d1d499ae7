/*
 * parse.c - smp_doc_parse / smp_doc_parse_file: options, format detection,
 * file reading.
 */
/* MAP_POPULATE is Linux's (outside strict POSIX). */
#define _DEFAULT_SOURCE 1
#include "codec.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * AUTO: kubectl's YAMLOrJSONDecoder treats a stream as JSON only when its
 * first non-whitespace byte is '{' (GuessJSONStream); everything else,
 * including a JSON array, goes through the YAML path. We do the same, so a
 * top-level '[' is read as YAML (a flow sequence), with YAML scalar rules.
 */
static smp_format sniff(const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (; i < len; i++) {
		char c = buf[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		return c == '{' ? SMP_FORMAT_JSON : SMP_FORMAT_YAML;
	}
	return SMP_FORMAT_YAML;
}

/* A file mapping being parsed: what of it has been given back. */
typedef struct mapping {
	const char *base;
	size_t len;
	size_t done; /* bytes from base already dropped (page multiple) */
} mapping;

/* Drops the mapped pages the reader is done with from this process's
 * memory (peak RSS: the text and its tree are not both resident). They
 * stay in the page cache; a MAP_PRIVATE file page that is touched again is
 * read again from the file. */
static void release_mapped(void *ctx, const char *upto)
{
	mapping *m = ctx;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	uintptr_t u = (uintptr_t)upto, b = (uintptr_t)m->base;

	/* Not in the mapping: the reader works on a converted copy. */
	if (u < b || u - b > m->len || page == 0 || (page & (page - 1)))
		return;
	/* Keep a page behind the reader (it may look one byte back). */
	size_t off = (size_t)(u - b);
	size_t end = off > page ? (off - page) & ~(page - 1) : 0;
	if (end > m->done) {
		madvise((char *)m->base + m->done, end - m->done, MADV_DONTNEED);
		m->done = end;
	}
}

static int parse(smp_doc **out, const char *buf, size_t len, const smp_parse_options *opts,
                 smp_error *err, mapping *map);

/* Reads buf (in its final encoding) as fmt into a new document (NULL on
 * failure). */
static int read_doc(smp_doc **out, const char *buf, size_t len, smp_format fmt,
                    const smp_pctx *pc)
{
	smp_doc *doc = smp_doc_alloc();
	int rc;

	*out = NULL;
	if (!doc)
		return smp_err_set(pc->err, SMP_ENOMEM, pc->file, 0, 0, NULL, "out of memory");
	/* A tree takes two to four times its text: one block for it (and
	 * what a patch adds) instead of hundreds of 1 MiB blocks. What is
	 * never touched costs address space only. */
	if (len >= ((size_t)1 << 20) && len <= SIZE_MAX / 4)
		smp_arena_hint(&doc->arena, len * 3 + ((size_t)1 << 20));
	smp_c_locale loc;
	smp_c_locale_enter(&loc);
	if (fmt == SMP_FORMAT_JSON) {
		/* Go's JSON decoder does not skip a byte order mark; kubectl's
		 * reader strips it before sniffing, so we do too. */
		if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
			buf += 3;
			len -= 3;
		}
		rc = smp_json_read(doc, buf, len, pc);
	} else {
		rc = smp_yaml_read(doc, buf, len, pc);
	}
	smp_c_locale_leave(&loc);
	if (rc) {
		smp_doc_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

int smp_doc_parse(smp_doc **out, const char *buf, size_t len,
                  const smp_parse_options *opts, smp_error *err)
{
	return parse(out, buf, len, opts, err, NULL);
}

/* smp_doc_parse's work, as kubectl reads a file: the options and the
 * size limit checked, UTF-16 with a byte-order mark turned into UTF-8,
 * the format sniffed (unless forced), then the reader; JSON is read as it
 * is first and, only when it meets invalid UTF-8, again cleaned (invalid
 * bytes as U+FFFD, as for YAML). `map` (may be NULL) is the file mapping
 * the text lives in, released with the document. */
static int parse(smp_doc **out, const char *buf, size_t len, const smp_parse_options *opts,
                 smp_error *err, mapping *map)
{
	smp_parse_options def = SMP_PARSE_OPTIONS_INIT;
	smp_pctx pc;
	smp_doc *doc;
	smp_format fmt;
	int rc;

	if (out)
		*out = NULL;
	if (!opts)
		opts = &def;
	pc.file = opts->filename ? opts->filename : "<input>";
	if (!out || (!buf && len) || (opts->version != 1 && opts->version != 2))
		return smp_err_set(err, SMP_EINVAL, pc.file, 0, 0, NULL,
		                   "smp_doc_parse: invalid arguments");
	pc.max_depth = opts->max_depth ? opts->max_depth : SMP_DEFAULT_MAX_DEPTH;
	pc.max_alias_nodes =
		opts->max_alias_nodes ? opts->max_alias_nodes : SMP_DEFAULT_MAX_ALIAS_NODES;
	pc.allow_dup = opts->allow_duplicate_keys;
	pc.yaml_compat = false;
	pc.err = err;
	pc.release = map ? release_mapped : NULL;
	pc.release_ctx = map;
	pc.invalid_utf8 = NULL;
	size_t max_bytes = opts->max_bytes ? opts->max_bytes : SMP_DEFAULT_MAX_BYTES;
	if (len > max_bytes)
		return smp_err_set(err, SMP_ELIMIT, pc.file, 0, 0, NULL,
		                   "input is %zu bytes, more than the limit of %zu", len,
		                   max_bytes);
	if (!buf)
		buf = "";
	/* kubectl reads files through a BOM-sniffing decoder: UTF-16 with a
	 * byte-order mark becomes UTF-8 first. */
	char *utf8 = NULL;
	if (len >= 2 && (((unsigned char)buf[0] == 0xff && (unsigned char)buf[1] == 0xfe) ||
	                 ((unsigned char)buf[0] == 0xfe && (unsigned char)buf[1] == 0xff))) {
		size_t ul;
		utf8 = smp_utf16_to_utf8(buf + 2, len - 2, (unsigned char)buf[0] == 0xfe, &ul);
		if (!utf8)
			return smp_err_set(err, SMP_ENOMEM, pc.file, 0, 0, NULL, "out of memory");
		buf = utf8;
		len = ul;
	}
	/* Then it decodes the input as UTF-8 with replacement (invalid bytes
	 * become U+FFFD, for YAML and JSON alike). The JSON reader checks
	 * UTF-8 itself: JSON is read first as it is, and only when that meets
	 * an invalid byte or fails is the text cleaned (and read again): a
	 * pass over the input saved in the common case, the same result in
	 * every case. */
	fmt = opts->format == SMP_FORMAT_AUTO ? sniff(buf, len) : opts->format;
	if (fmt == SMP_FORMAT_JSON) {
		bool bad = false;
		pc.invalid_utf8 = &bad;
		rc = read_doc(&doc, buf, len, fmt, &pc);
		pc.invalid_utf8 = NULL;
		if (!bad && (rc == 0 || rc == SMP_ENOMEM)) {
			free(utf8);
			*out = doc;
			return rc;
		}
	}
	bool nomem;
	size_t clean_len;
	char *clean = smp_utf8_sanitize(buf, len, &clean_len, &nomem);
	if (nomem) {
		free(utf8);
		return smp_err_set(err, SMP_ENOMEM, pc.file, 0, 0, NULL, "out of memory");
	}
	if (fmt == SMP_FORMAT_JSON && !clean) {
		/* Valid UTF-8: the failure above stands (err is set). */
		free(utf8);
		return rc;
	}
	if (clean) {
		buf = clean;
		len = clean_len;
	}
	fmt = opts->format == SMP_FORMAT_AUTO ? sniff(buf, len) : opts->format;
	rc = read_doc(&doc, buf, len, fmt, &pc);
	free(clean);
	free(utf8);
	*out = doc;
	return rc;
}

/*
 * Reads a stream to its end, holding at most max + 1 bytes: from FILE f
 * (standard input, which may have been read from already through its
 * buffer) or else from the file descriptor fd. NULL on failure (errno
 * set), or with *too_big when there is more than max (the stream is left
 * unread past that). `size` is a regular file's size (0: unknown): its
 * buffer is sized to it at once and one read that fills it is the end (a
 * file that grows meanwhile is read as it was), so that each of the
 * thousands of files a plan reads costs one read() system call.
 */
static char *read_all(FILE *f, int fd, size_t size, size_t max, size_t *len, bool *too_big)
{
	size_t cap = 65536, n = 0;

	if (max > SIZE_MAX - 1)
		max = SIZE_MAX - 1;
	if (size && size <= max)
		cap = size + 1;
	else
		size = 0;
	if (cap > max)
		cap = max + 1;
	char *buf = malloc(cap);

	*too_big = false;
	if (!buf)
		return NULL;
	for (;;) {
		size_t got;

		if (n == cap) {
			if (n > max) {
				*too_big = true;
				free(buf);
				return NULL;
			}
			/* Doubling, but never past max + 1: a stream cut at the
			 * limit must not make the buffer twice the limit. */
			size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap = ncap;
		}
		if (f) {
			got = fread(buf + n, 1, cap - n, f);
			if (got == 0 && ferror(f)) {
				int e = errno;
				free(buf);
				errno = e ? e : EIO;
				return NULL;
			}
		} else {
			ssize_t r = read(fd, buf + n, cap - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				int e = errno;
				free(buf);
				errno = e;
				return NULL;
			}
			got = (size_t)r;
		}
		n += got;
		if (got == 0 || (size && n == size))
			break;
	}
	*len = n;
	return buf;
}

/* Files below this size are read, not mapped: mapping and unmapping a
 * small file costs more than copying it (each munmap flushes the TLB of
 * every core running the process), and the copy is soon freed. A plan over
 * thousands of small configuration files spent a third of its time there. */
#define MAP_MIN_BYTES ((off_t)256 << 10)

/*
 * A regular file is mapped rather than copied into a buffer: no copy, and
 * no memory of our own for the text. 1 when *out was set (parsed or
 * failed), 0 when the caller should read the file instead (smaller than
 * MAP_MIN_BYTES, or mmap refused). fd is a regular file of st_size bytes,
 * no more than the limit.
 */
static int parse_mapped(smp_doc **out, int fd, const struct stat *st,
                        const smp_parse_options *o, smp_error *err, int *rc)
{
	if (st->st_size < MAP_MIN_BYTES)
		return 0;
	size_t len = (size_t)st->st_size;
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED)
		return 0;
	mapping m = {p, len, 0};
	*rc = parse(out, p, len, o, err, &m);
	munmap(p, len);
	return 1;
}

static int too_big_error(smp_error *err, const char *name, size_t max)
{
	return smp_err_set(err, SMP_ELIMIT, name, 0, 0, NULL,
	                   "input is more than the limit of %zu bytes", max);
}

/* Standard input, from where its FILE stands. */
static int parse_stdin(smp_doc **out, const smp_parse_options *o, size_t max, smp_error *err)
{
	struct stat st;
	bool too_big;
	size_t len = 0;
	off_t at = ftello(stdin); /* stdin may be read from mid-file */

	if (fstat(fileno(stdin), &st) == 0 && S_ISREG(st.st_mode) &&
	    (uintmax_t)(st.st_size - (at > 0 ? at : 0)) > max)
		return too_big_error(err, o->filename, max); /* before reading a byte */
	char *buf = read_all(stdin, -1, 0, max, &len, &too_big);
	int e = errno;
	if (!buf) {
		if (too_big)
			return too_big_error(err, o->filename, max);
		return smp_err_set(err, e == ENOMEM ? SMP_ENOMEM : SMP_EIO, o->filename, 0, 0,
		                   NULL, "cannot read: %s", strerror(e));
	}
	int rc = smp_doc_parse(out, buf, len, o, err);
	free(buf);
	return rc;
}

/* A named file: one open, one fstat, then mapped or read. */
static int parse_path(smp_doc **out, const char *path, const smp_parse_options *o,
                      size_t max, smp_error *err)
{
	struct stat st;
	bool too_big;
	size_t len = 0;
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return smp_err_set(err, SMP_EIO, o->filename, 0, 0, NULL, "cannot open: %s",
		                   strerror(errno));
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return smp_err_set(err, SMP_EIO, o->filename, 0, 0, NULL, "cannot read: %s",
		                   strerror(e));
	}
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > max) {
		close(fd); /* refused before reading a byte */
		return too_big_error(err, o->filename, max);
	}
	if (o->map_file && S_ISREG(st.st_mode) && parse_mapped(out, fd, &st, o, err, &rc)) {
		close(fd);
		return rc;
	}
	char *buf = read_all(NULL, fd, S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 0,
	                     max, &len, &too_big);
	int e = errno;
	close(fd);
	if (!buf) {
		if (too_big)
			return too_big_error(err, o->filename, max);
		return smp_err_set(err, e == ENOMEM ? SMP_ENOMEM : SMP_EIO, o->filename, 0, 0,
		                   NULL, "cannot read: %s", strerror(e));
	}
	rc = smp_doc_parse(out, buf, len, o, err);
	free(buf);
	return rc;
}

int smp_doc_parse_file(smp_doc **out, const char *path, const smp_parse_options *opts,
                       smp_error *err)
{
	smp_parse_options o = SMP_PARSE_OPTIONS_INIT;
	bool is_stdin;

	if (out)
		*out = NULL;
	if (!out || !path)
		return smp__err(err, SMP_EINVAL, "smp_doc_parse_file: invalid arguments");
	if (opts && opts->version == 1) {
		/* A version 1 struct ends before map_file. */
		memcpy(&o, opts, offsetof(smp_parse_options, map_file));
		o.version = SMP_PARSE_OPTIONS_VERSION;
		o.map_file = false;
	} else if (opts) {
		o = *opts;
	}
	if (o.version != SMP_PARSE_OPTIONS_VERSION)
		return smp__err(err, SMP_EINVAL, "smp_doc_parse_file: invalid arguments");
	is_stdin = strcmp(path, "-") == 0;
	if (!o.filename)
		o.filename = is_stdin ? "<stdin>" : path;
	size_t max = o.max_bytes ? o.max_bytes : SMP_DEFAULT_MAX_BYTES;
	return is_stdin ? parse_stdin(out, &o, max, err) : parse_path(out, path, &o, max, err);
}
