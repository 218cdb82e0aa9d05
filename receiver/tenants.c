/*
 * tenants.c
 *	  Credentials to PostgreSQL roles (tenants.h).  Credentials are
 *	  compared in time that does not depend on where they differ.  The
 *	  table is read under a read lock and replaced, on SIGHUP, under the
 *	  write lock; each push gets a copy of its role, so that a reload
 *	  frees no string a push still uses.
 */
#include "tenants.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base64.h"
#include "metrics.h"

typedef enum CredentialKind
{
	CRED_BEARER,
	CRED_BASIC,					/* USER:PASSWORD, as Basic sends it once decoded */
	CRED_ORGID
} CredentialKind;

typedef struct Tenant
{
	CredentialKind kind;
	char	   *credential;
	char	   *role;
} Tenant;

struct Tenants
{
	pthread_rwlock_t lock;
	Tenant	   *tenants;
	int			count;
};

static const char *kind_names[] = {"bearer", "basic", "orgid"};

static bool
same_secret(const char *a, const char *b)
{
	size_t		la = strlen(a);
	size_t		lb = strlen(b);
	unsigned char diff = la != lb;

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char) a[i] ^ (unsigned char) b[i % (lb ? lb : 1)];
	return diff == 0 && lb > 0;
}

/* One line's words: kind, credential, role; false if it has not three */
static bool
split_line(char *line, char **words)
{
	int			n = 0;
	char	   *save = NULL;

	for (char *w = strtok_r(line, " \t\r\n", &save); w != NULL; w = strtok_r(NULL, " \t\r\n", &save))
	{
		if (n == 3)
			return false;
		words[n++] = w;
	}
	return n == 3;
}

static bool
add_tenant(Tenants *t, char **words, const char *path, int lineno)
{
	Tenant		tenant = {0};
	size_t		k;

	for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strcasecmp(words[0], kind_names[k]) == 0)
			break;
	if (k == sizeof(kind_names) / sizeof(kind_names[0]))
	{
		fprintf(stderr, "calltree-receiver: %s:%d: \"%s\" is not bearer, basic or orgid\n",
				path, lineno, words[0]);
		return false;
	}
	if (k == CRED_BASIC && strchr(words[1], ':') == NULL)
	{
		fprintf(stderr, "calltree-receiver: %s:%d: basic takes USER:PASSWORD\n", path, lineno);
		return false;
	}
	tenant.kind = (CredentialKind) k;
	tenant.credential = strdup(words[1]);
	tenant.role = strdup(words[2]);
	t->tenants = realloc(t->tenants, sizeof(Tenant) * (size_t) (t->count + 1));
	t->tenants[t->count++] = tenant;
	return true;
}

void
tenants_free(Tenants *t)
{
	if (t == NULL)
		return;
	for (int i = 0; i < t->count; i++)
	{
		free(t->tenants[i].credential);
		free(t->tenants[i].role);
	}
	free(t->tenants);
	pthread_rwlock_destroy(&t->lock);
	free(t);
}

bool
tenants_reload(Tenants *t, const char *path, int *count)
{
	Tenants    *fresh = tenants_load(path, count);
	Tenant	   *old;
	int			old_count;

	if (fresh == NULL)
		return false;
	pthread_rwlock_wrlock(&t->lock);
	old = t->tenants;
	old_count = t->count;
	t->tenants = fresh->tenants;
	t->count = fresh->count;
	pthread_rwlock_unlock(&t->lock);
	fresh->tenants = old;
	fresh->count = old_count;
	tenants_free(fresh);
	return true;
}

Tenants *
tenants_load(const char *path, int *count)
{
	FILE	   *file = fopen(path, "r");
	Tenants    *t;
	char		line[4096];
	int			lineno = 0;

	if (file == NULL)
	{
		fprintf(stderr, "calltree-receiver: cannot read %s: %s\n", path, strerror(errno));
		return NULL;
	}
	t = calloc(1, sizeof(Tenants));
	pthread_rwlock_init(&t->lock, NULL);
	while (fgets(line, sizeof(line), file) != NULL)
	{
		char	   *words[3];
		char	   *hash = strchr(line, '#');

		lineno++;
		if (hash != NULL)
			*hash = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (!split_line(line, words))
		{
			fprintf(stderr, "calltree-receiver: %s:%d: a line is KIND CREDENTIAL ROLE\n", path, lineno);
			fclose(file);
			tenants_free(t);
			return NULL;
		}
		if (!add_tenant(t, words, path, lineno))
		{
			fclose(file);
			tenants_free(t);
			return NULL;
		}
	}
	fclose(file);
	if (t->count == 0)
	{
		fprintf(stderr, "calltree-receiver: %s names no tenant\n", path);
		tenants_free(t);
		return NULL;
	}
	*count = t->count;
	return t;
}

/* Basic credentials decoded into out, NUL-terminated; false if not base64 or too long */
static bool
decode_basic(const char *in, char *out, size_t out_size)
{
	size_t		len = strlen(in);
	size_t		n;

	if (len / 4 * 3 + 3 >= out_size || !base64_decode(in, len, out, &n))
		return false;
	out[n] = '\0';
	return memchr(out, '\0', n) == NULL;
}

static const char *
find(const Tenants *t, CredentialKind kind, const char *credential)
{
	const char *role = NULL;

	/* every entry is compared, so that the time does not tell which matched */
	for (int i = 0; i < t->count; i++)
		if (t->tenants[i].kind == kind && same_secret(credential, t->tenants[i].credential) && role == NULL)
			role = t->tenants[i].role;
	return role;
}

static bool
unauthorized(Reply *reply, const char *why)
{
	reply_text(reply, 401, "%s", why);
	metrics_count_refusal("unauthorized");
	return false;
}

/* A copy of the role of the credential of that kind, or NULL */
static char *
role_of(Tenants *t, CredentialKind kind, const char *credential)
{
	const char *role;
	char	   *copy;

	pthread_rwlock_rdlock(&t->lock);
	role = find(t, kind, credential);
	copy = role ? strdup(role) : NULL;
	pthread_rwlock_unlock(&t->lock);
	return copy;
}

bool
tenants_authenticate(Tenants *t, const Request *req, char **role, Reply *reply)
{
	const char *authorization;
	const char *orgid;
	char		decoded[1024];

	*role = NULL;
	if (t == NULL)
		return true;
	authorization = request_header(req, "Authorization");
	orgid = request_header(req, "X-Scope-OrgID");
	if (authorization != NULL && strncasecmp(authorization, "Bearer ", 7) == 0)
		*role = role_of(t, CRED_BEARER, authorization + 7);
	else if (authorization != NULL && strncasecmp(authorization, "Basic ", 6) == 0)
	{
		if (!decode_basic(authorization + 6, decoded, sizeof(decoded)))
			return unauthorized(reply, "the Basic credentials are not base64");
		*role = role_of(t, CRED_BASIC, decoded);
	}
	else if (authorization != NULL)
		return unauthorized(reply, "the Authorization header is neither Bearer nor Basic");
	else if (orgid != NULL)
		*role = role_of(t, CRED_ORGID, orgid);
	else
		return unauthorized(reply, "credentials are required: Authorization (Bearer or Basic) or X-Scope-OrgID");
	if (*role == NULL)
		return unauthorized(reply, "unknown credentials");
	return true;
}
