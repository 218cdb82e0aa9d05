/*
 * profile_lookup.h
 *	  Whether calltree.profile holds a profile id that a SQL argument names
 *	  (profile_lookup.c).
 *
 * A function that reads a profile's samples finds none both for a profile
 * without samples and for an id that names nothing; the check tells the
 * two apart, so that a wrong id is an error rather than an empty result.
 */
#ifndef CALLTREE_PROFILE_LOOKUP_H
#define CALLTREE_PROFILE_LOOKUP_H

#include "postgres.h"

/* Errors unless calltree.profile holds the id; `function` names the caller in the message */
extern void profile_lookup_check(int64 profile_id, const char *function);

#endif							/* CALLTREE_PROFILE_LOOKUP_H */
