/*
 * tenants.h
 *	  Credentials to PostgreSQL roles, from a file of lines
 *	      bearer TOKEN ROLE
 *	      basic USER:PASSWORD ROLE
 *	      orgid ORG_ID ROLE
 *	  ('#' starts a comment).  A push is imported as the role its
 *	  Authorization header (Bearer or Basic) names, else as the role of its
 *	  X-Scope-OrgID.  Without a file, every push is imported as the login
 *	  role and nothing is asked.
 */
#ifndef RECEIVER_TENANTS_H
#define RECEIVER_TENANTS_H

#include <stdbool.h>

#include "request.h"

typedef struct Tenants Tenants;

/* The file's tenants; NULL after printing what is wrong with it */
extern Tenants *tenants_load(const char *path, int *count);
extern void tenants_free(Tenants *tenants);

/*
 * The file read again into tenants, in one step beside the pushes being
 * authenticated; false, the tenants as they were, after printing what is
 * wrong with it
 */
extern bool tenants_reload(Tenants *tenants, const char *path, int *count);

/*
 * The role of the push's credentials, malloc'd for the caller to free
 * (*role NULL when tenants is NULL), or false after filling a 401 reply.
 */
extern bool tenants_authenticate(Tenants *tenants, const Request *req, char **role, Reply *reply);

#endif
