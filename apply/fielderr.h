/*
 * fielderr.h - the API server's field.ErrorList, as the built-in rules
 * (check*.c) collect it, and the 422 Status made of it (fielderr.c).
 * Internal to apply/.
 */
#ifndef SMP_FIELDERR_H
#define SMP_FIELDERR_H

#include "smpatch.h"
#include "codec/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* field.ErrorType: each has its text (ErrorType.String()) and its
 * CauseType (the cause's "reason"). */
typedef enum smp_fe_type {
	SMP_FE_NOT_FOUND,
	SMP_FE_REQUIRED,
	SMP_FE_DUPLICATE,
	SMP_FE_INVALID,
	SMP_FE_NOT_SUPPORTED,
	SMP_FE_FORBIDDEN,
	SMP_FE_TOO_LONG,
	SMP_FE_TOO_MANY,
	SMP_FE_INTERNAL,
	SMP_FE_TYPE_INVALID /* "Invalid value", its cause FieldValueTypeInvalid */
} smp_fe_type;

/* One field.Error: its path (field.Path.String()) and its ErrorBody, with
 * the place in the input of the value it concerns. */
typedef struct smp_fe {
	smp_fe_type type;
	const char *field, *body; /* in the list's arena */
	unsigned line, col;
} smp_fe;

/* A field.ErrorList being built, and the field.Path of the rule running:
 * rules push path elements, add errors at the path (or a child of it) and
 * pop. Out of memory is sticky in rc: callers check it once at the end. */
typedef struct smp_felist {
	smp_fe *items;
	size_t n, cap;
	smp_buf path;  /* "spec.template.spec.containers[0]" */
	smp_buf val;   /* scratch: a rendered value */
	smp_arena a;   /* the errors' texts */
	int rc;        /* SMP_OK or SMP_ENOMEM */
	/* set by a rule that met what it cannot word as the server does (a
	 * value printed with a pointer's address, a rule not written yet):
	 * errors found then are no prediction */
	bool unpredictable;
} smp_felist;

void smp_fe_init(smp_felist *l);
void smp_fe_release(smp_felist *l);

/* The path: each push returns the length to pop back to. */
size_t smp_fe_child(smp_felist *l, const char *name);
size_t smp_fe_index(smp_felist *l, size_t i);
size_t smp_fe_key(smp_felist *l, const char *key, size_t n);
void smp_fe_pop(smp_felist *l, size_t len);

/* Appends an error at the path, or at its child `sub` (NULL: the path
 * itself), as field.<Type>(path, value, detail) makes it: the body is the
 * type's text, then ": " and `value` (already in Go's %v/%#v/%q form,
 * NULL for none; never for Required, Forbidden, TooLong, Internal), then
 * ": " and `detail` when not empty. `at` gives the line and column. */
void smp_fe_add(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                const char *value, const char *detail);

/* The same with the value the caller rendered into l->val (a Go %#v
 * text: a struct, a map). */
void smp_fe_add_val(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                    const char *detail);

/* The same with a string value, quoted as Go's %q does. */
void smp_fe_add_str(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                    const char *s, size_t n, const char *detail);

/* The same with an integer value (%v). */
void smp_fe_add_int(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                    int64_t v, const char *detail);

/* field.NotSupported: `valid` is the supported values, already quoted and
 * joined by ", " as the server lists them. */
void smp_fe_not_supported(smp_felist *l, const char *sub, const smp_value *at,
                          const char *s, size_t n, const char *valid);

/* The value of a map[string]string as %#v prints it (keys sorted):
 * map[string]string{"a":"b", "c":"d"}, map[string]string(nil) for none. */
void smp_fe_go_map(smp_buf *b, const smp_value *map);

/* Appends s as Go's strconv.Quote does (%q): \a \b \f \n \r \t \v, \xNN
 * for other control bytes and invalid UTF-8, \uNNNN for the non-printable
 * runes, printable runes as they are. */
void smp_quote_go(smp_buf *b, const char *s, size_t n);

/* The 422 Status of the errors (errors.NewInvalid): the message
 * "<Kind[.group]> <%q name> is invalid: " and the errors' texts, each once
 * ("[a, b]" when several), one cause per error in order. `obj` names the
 * kind, group and name. The error `err` gets the object's reference, the
 * same texts, and the first error's path. SMP_ENOMEM, else the Status in
 * *out (free with smp_doc_free) and SMP_EINVALOBJ in err. */
int smp__fe_status(smp_doc **out, smp_error *err, const smp_felist *l, const smp_value *obj);

#endif
