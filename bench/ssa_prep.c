/*
 * ssa_prep.c - input plumbing of the server-side apply benchmark
 * (bench/ssa.sh; not the library).
 *
 *   ssa_prep live ANSWERS.jsonl
 *       prints the stored object of the first answer (oracle format): its
 *       object with metadata.managedFields set to its managedFields, as
 *       compact JSON; exit 1 when the answer is not ok.
 *   ssa_prep case ID LIVE|- CONFIG MANAGER
 *       prints one request line {"id","live","config","manager","force":
 *       false,"op":"apply"}; LIVE - is a create (live null).
 */
#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "ssa_prep: cannot read %s\n", path);
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static cJSON *parse_file(const char *path)
{
	char *s = slurp(path);
	cJSON *v = s ? cJSON_Parse(s) : NULL;

	if (s && !v)
		fprintf(stderr, "ssa_prep: %s: not JSON\n", path);
	free(s);
	return v;
}

static int put(cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);
	int rc = s && printf("%s", s) >= 0 ? 0 : 1;

	cJSON_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if (argc == 3 && strcmp(argv[1], "live") == 0) {
		cJSON *a = parse_file(argv[2]), *obj, *md;
		if (!a)
			return 2;
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "ok"))) {
			cJSON *e = cJSON_GetObjectItemCaseSensitive(a, "error");
			fprintf(stderr, "ssa_prep: the answer is not ok: %s\n", cJSON_IsString(e) ? e->valuestring : "?");
			cJSON_Delete(a);
			return 1;
		}
		obj = cJSON_DetachItemFromObjectCaseSensitive(a, "object");
		md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
		if (!md)
			md = cJSON_AddObjectToObject(obj, "metadata");
		cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
		cJSON_AddItemToObject(md, "managedFields", cJSON_DetachItemFromObjectCaseSensitive(a, "managedFields"));
		rc = put(obj);
		printf("\n");
		cJSON_Delete(obj);
		cJSON_Delete(a);
		return rc;
	}
	if (argc == 6 && strcmp(argv[1], "case") == 0) {
		cJSON *c = cJSON_CreateObject(), *live = NULL, *config = parse_file(argv[4]);
		if (strcmp(argv[3], "-") != 0 && !(live = parse_file(argv[3])))
			goto out;
		if (!config)
			goto out;
		cJSON_AddStringToObject(c, "id", argv[2]);
		cJSON_AddItemToObject(c, "live", live ? live : cJSON_CreateNull());
		live = NULL;
		cJSON_AddItemToObject(c, "config", config);
		config = NULL;
		cJSON_AddStringToObject(c, "manager", argv[5]);
		cJSON_AddFalseToObject(c, "force");
		cJSON_AddStringToObject(c, "op", "apply");
		rc = put(c);
		printf("\n");
	out:
		cJSON_Delete(live);
		cJSON_Delete(config);
		cJSON_Delete(c);
		return rc;
	}
	fprintf(stderr, "usage: ssa_prep live ANSWERS.jsonl\n"
			"       ssa_prep case ID LIVE|- CONFIG MANAGER\n");
	return 2;
}
