/*
 * plan_live.c - live objects from a file the plan does not hold
 * (smp_plan_add_live_file): a JSON List (`kubectl get -A -o json`) read
 * item by item through a small window, each item parsed once to check it
 * and learn its reference, then dropped; the plan keeps its place in the
 * file and a skeleton (apiVersion, kind, name, namespace, labels, whether
 * it carries the last-applied annotation) for the index and prune, and
 * reads the item again when an entry needs it (plan_live_read.c).
 * Anything else (YAML, one object, a stream) is parsed whole, as
 * smp_plan_add_live does.
 */
#include "plan_int.h"
#include "codec/json_skip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The window starts at this size and doubles for an item that does not
 * fit. */
#define WINDOW_BYTES ((size_t)1 << 20)
/* Top-level members of the List besides items (apiVersion, kind,
 * metadata): more, or a repeated one, and the file is parsed whole. */
#define MAX_TOP_KEYS 16

/* The scan's window on the file: buf[0..len) is the file from byte base. */
typedef struct scan {
	int fd;
	char *buf;
	size_t cap, len, pos;
	uint64_t base;
	bool eof;
} scan;

/* What the scan found, committed to the plan only when the whole file
 * was read so (else the file is parsed whole). */
typedef struct found {
	plan_obj *objs;
	size_t n, cap;
} found;

/* Outcomes of the scan besides 0. */
enum { SCAN_WHOLE = 1 }; /* not a plain List: parse it whole */

/* Keeps buf[pos..len) and reads more after it; the window doubles when it
 * is full. 0, SMP_ENOMEM, or SMP_EIO with errno. */
static int fill(scan *s)
{
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->base += s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	if (s->len == s->cap) {
		char *nb = s->cap > SIZE_MAX / 2 ? NULL : realloc(s->buf, s->cap * 2);

		if (!nb)
			return SMP_ENOMEM;
		s->buf = nb;
		s->cap *= 2;
	}
	while (s->len < s->cap) {
		ssize_t got = read(s->fd, s->buf + s->len, s->cap - s->len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return SMP_EIO;
		if (got == 0) {
			s->eof = true;
			break;
		}
		s->len += (size_t)got;
	}
	return 0;
}

/* peek's answer at the end of the file (error codes are from -1 down). */
#define PEEK_EOF (-1000)

/* The next byte that is not whitespace (not consumed), PEEK_EOF at the end
 * of the file, or an error code. */
static int peek(scan *s)
{
	for (;;) {
		while (s->pos < s->len) {
			char c = s->buf[s->pos];
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
				return (unsigned char)c;
			s->pos++;
		}
		if (s->eof)
			return PEEK_EOF;
		int rc = fill(s);
		if (rc)
			return rc;
	}
}

/* The whole value at pos in the window: *end just after it. 0,
 * SCAN_WHOLE (no value there), or an error code. */
static int value(scan *s, size_t *end)
{
	for (;;) {
		ptrdiff_t e = smp__json_value_end(s->buf, s->len, s->pos);

		if (e >= 0) {
			*end = (size_t)e;
			return 0;
		}
		if (e == SMP_JSON_MALFORMED)
			return SCAN_WHOLE;
		if (s->eof) {
			/* a bare scalar may end with the file; nothing else may */
			char c = s->buf[s->pos];
			if (c == '{' || c == '[' || c == '"')
				return SCAN_WHOLE;
			*end = s->len;
			return 0;
		}
		int rc = fill(s);
		if (rc)
			return rc;
	}
}

/* Parses buf[0..n) as JSON, one value, as the whole file's parse would
 * read it there: SCAN_WHOLE when it does not parse (the whole file's
 * parse then says where). A byte-order mark is a document's first bytes
 * or nothing: inside the file, where a piece starts, the whole parse
 * refuses it, so the piece is not read alone. */
static int parse_piece(smp_doc **doc, const char *buf, size_t n, const char *label)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;
	int rc;

	*doc = NULL;
	if (n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		return SCAN_WHOLE;
	po.format = SMP_FORMAT_JSON;
	po.filename = label;
	rc = smp_doc_parse(doc, buf, n, &po, &err);
	if (rc == SMP_ENOMEM)
		return rc;
	if (rc || smp_doc_count(*doc) != 1) {
		smp_doc_free(*doc);
		*doc = NULL;
		return SCAN_WHOLE;
	}
	return 0;
}

/* A copy of field `key` of `from` into `to`, when there is one. */
static int copy_field(smp_arena *a, smp_value *to, const smp_value *from, const char *key)
{
	const smp_value *v = smpv_map_get(from, key);
	smp_value *c;

	if (!v)
		return 0;
	if (!(c = smpv_copy(a, v)))
		return SMP_ENOMEM;
	return smpv_map_add_copy(a, to, key, strlen(key), c);
}

/* The skeleton of live object v in arena a: what the index, the scopes and
 * prune read of it (plan.c), nothing else. NULL on ENOMEM. */
static smp_value *skeleton(smp_arena *a, const smp_value *v)
{
	const smp_value *md = smpv_map_get(v, "metadata"), *ann;
	smp_value *sk = smpv_map(a, 3), *smd;

	if (!sk || copy_field(a, sk, v, "apiVersion") || copy_field(a, sk, v, "kind"))
		return NULL;
	if (!md)
		return sk;
	if (smp_value_type(md) != SMP_MAP)
		return copy_field(a, sk, v, "metadata") ? NULL : sk;
	if (!(smd = smpv_map(a, 4)) || smpv_map_add_copy(a, sk, "metadata", 8, smd) ||
	    copy_field(a, smd, md, "name") || copy_field(a, smd, md, "namespace") ||
	    copy_field(a, smd, md, "labels"))
		return NULL;
	ann = smpv_map_get(md, "annotations");
	if (smp_value_type(ann) == SMP_MAP && smpv_map_get(ann, SMP_LAST_APPLIED_ANNOTATION)) {
		/* only whether it is there: its text stays in the file */
		smp_value *sa = smpv_map(a, 1), *nul = smpv_null(a);

		if (!sa || !nul || smpv_map_add_copy(a, smd, "annotations", 11, sa) ||
		    smpv_map_add_copy(a, sa, SMP_LAST_APPLIED_ANNOTATION,
		                      strlen(SMP_LAST_APPLIED_ANNOTATION), nul))
			return NULL;
	}
	return sk;
}

/* One item of the List, buf[start..end) of the window: checked as
 * smp_plan_add_live checks it, then its skeleton and place kept. */
static int item(scan *s, size_t start, size_t end, smp_doc *skel, unsigned file,
                const char *label, found *f)
{
	smp_doc *doc = NULL;
	const smp_value *v;
	smp_value *sk;
	int rc = parse_piece(&doc, s->buf + start, end - start, label);

	if (rc)
		return rc;
	v = smp_doc_root(doc, 0);
	if (smp_value_type(v) == SMP_NULL) {
		smp_doc_free(doc);
		return 0; /* a null item is no object, as in a List parsed whole */
	}
	if (smp_value_type(v) != SMP_MAP || smpv_map_get(v, "items")) {
		smp_doc_free(doc); /* refused: the whole parse says how */
		return SCAN_WHOLE;
	}
	sk = skeleton(&skel->arena, v);
	smp_doc_free(doc);
	if (!sk)
		return SMP_ENOMEM;
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 1024;
		plan_obj *no = realloc(f->objs, ncap * sizeof(*no));
		if (!no)
			return SMP_ENOMEM;
		f->objs = no;
		f->cap = ncap;
	}
	memset(&f->objs[f->n], 0, sizeof(f->objs[f->n]));
	f->objs[f->n].v = sk;
	f->objs[f->n].label = label;
	f->objs[f->n].file = file;
	f->objs[f->n].off = s->base + start;
	f->objs[f->n].len = end - start;
	f->n++;
	return 0;
}

/* What the scan makes of peek's c where it wanted something else: the
 * error, or SCAN_WHOLE (another shape, or the end too soon). */
static int bad(int c)
{
	return c < 0 && c != PEEK_EOF ? c : SCAN_WHOLE;
}

/* The items array, from its '[' on. */
static int items(scan *s, smp_doc *skel, unsigned file, const char *label, found *f)
{
	size_t end;
	int c, rc;

	s->pos++;
	if ((c = peek(s)) == ']') {
		s->pos++;
		return 0;
	}
	for (;;) {
		if (c < 0)
			return bad(c);
		if ((rc = value(s, &end)))
			return rc;
		if ((rc = item(s, s->pos, end, skel, file, label, f)))
			return rc;
		s->pos = end;
		c = peek(s);
		if (c == ']') {
			s->pos++;
			return 0;
		}
		if (c != ',')
			return bad(c);
		s->pos++;
		c = peek(s);
	}
}

/* A member of the List other than items: parsed (so that the file is
 * checked as a whole parse checks it) and dropped; *is_string tells
 * whether it is a string (kind must be). */
static int other_member(scan *s, const char *label, bool *is_string)
{
	smp_doc *doc = NULL;
	size_t end;
	int rc = value(s, &end);

	if (rc)
		return rc;
	*is_string = s->buf[s->pos] == '"';
	if ((rc = parse_piece(&doc, s->buf + s->pos, end - s->pos, label)))
		return rc;
	smp_doc_free(doc);
	s->pos = end;
	return 0;
}

/* Reads the file as a List: 0 with its items in f, SCAN_WHOLE when it is
 * something else, or an error code. */
static int scan_list(scan *s, smp_doc *skel, unsigned file, const char *label, found *f)
{
	char seen[MAX_TOP_KEYS][16];
	size_t nseen = 0;
	bool have_items = false, kind_string = false;
	int c, rc;

	if ((c = peek(s)) != '{')
		return bad(c);
	s->pos++;
	for (;;) {
		size_t kend, klen;
		const char *key;

		if ((c = peek(s)) != '"')
			return bad(c); /* '}' too: no items, not a List */
		if ((rc = value(s, &kend)))
			return rc;
		key = s->buf + s->pos + 1;
		klen = kend - s->pos - 2;
		if (klen >= sizeof(seen[0]) || nseen == MAX_TOP_KEYS)
			return SCAN_WHOLE;
		for (size_t i = 0; i < klen; i++)
			if ((unsigned char)key[i] < 0x20 || (unsigned char)key[i] >= 0x80 ||
			    key[i] == '\\')
				return SCAN_WHOLE; /* plain ASCII only: the rest the parser reads */
		for (size_t i = 0; i < nseen; i++)
			if (strlen(seen[i]) == klen && memcmp(seen[i], key, klen) == 0)
				return SCAN_WHOLE; /* a repeated key: the parser's error */
		memcpy(seen[nseen], key, klen);
		seen[nseen++][klen] = '\0';
		s->pos = kend;
		if ((c = peek(s)) != ':')
			return bad(c);
		s->pos++;
		if ((c = peek(s)) < 0)
			return bad(c);
		if (strcmp(seen[nseen - 1], "items") == 0) {
			have_items = true;
			if (c == '[')
				rc = items(s, skel, file, label, f);
			else if (c == 'n') /* items: null is an empty List */
				rc = other_member(s, label, &(bool){false});
			else
				rc = SCAN_WHOLE;
		} else {
			bool str = false;
			rc = other_member(s, label, &str);
			if (strcmp(seen[nseen - 1], "kind") == 0)
				kind_string = str;
		}
		if (rc)
			return rc;
		c = peek(s);
		if (c == '}')
			break;
		if (c != ',')
			return bad(c);
		s->pos++;
	}
	s->pos++;
	if ((c = peek(s)) != PEEK_EOF)
		return bad(c); /* another document after it */
	return have_items && kind_string ? 0 : SCAN_WHOLE;
}

/* The file parsed whole and added as smp_plan_add_live adds a document. */
static int add_whole(smp_plan *p, const char *path, smp_error *err)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc;
	int rc;

	if ((rc = smp_doc_parse_file(&doc, path, &po, err)))
		return rc;
	return smp_plan_add_live(p, doc, path, err);
}

int smp_plan_add_live_file(smp_plan *p, const char *path, smp_error *err)
{
	scan s;
	found f = {NULL, 0, 0};
	smp_doc *skel = NULL;
	char *label = NULL;
	struct stat st;
	int rc;

	if (!p || !path)
		return smp__err(err, SMP_EINVAL, "smp_plan_add_live_file: invalid arguments");
	if (p->started)
		return smp__err(err, SMP_EINVAL, "the plan is already computed");
	memset(&s, 0, sizeof(s));
	if (strcmp(path, "-") == 0)
		return add_whole(p, path, err);
	/* a stream (a FIFO is opened once: only by the whole parse), or more
	 * than the parser reads at once: parsed whole, which says so */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uintmax_t)st.st_size > SMP_DEFAULT_MAX_BYTES)
		return add_whole(p, path, err);
	if ((s.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return smp_err_set(err, SMP_EIO, path, 0, 0, NULL, "cannot open: %s",
		                   strerror(errno));
	if (!(s.buf = malloc(s.cap = WINDOW_BYTES)) || !(skel = smp_doc_alloc()) ||
	    !(label = strdup(path)) || !smp__plan_grow_files(p)) {
		rc = SMP_ENOMEM;
		goto out;
	}
	p->lfds[p->nlfds] = s.fd;
	rc = scan_list(&s, skel, (unsigned)p->nlfds + 1, label, &f);
	if (rc == SCAN_WHOLE) {
		rc = 0;
		goto whole;
	}
	if (rc == SMP_EIO) {
		rc = smp_err_set(err, SMP_EIO, path, 0, 0, NULL, "cannot read: %s", strerror(errno));
		goto out;
	}
	if (rc || (rc = smp__plan_commit_live(p, f.objs, f.n, skel, label, err)))
		goto out;
	p->nlfds++; /* the plan reads the file again until it is freed */
	free(s.buf);
	free(f.objs);
	return 0;
whole:
	free(s.buf);
	free(f.objs);
	smp_doc_free(skel);
	free(label);
	close(s.fd);
	return add_whole(p, path, err);
out:
	free(s.buf);
	free(f.objs);
	smp_doc_free(skel);
	free(label);
	close(s.fd);
	return rc == SMP_ENOMEM ? smp__err(err, SMP_ENOMEM, "out of memory") : rc;
}
