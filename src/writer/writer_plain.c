/*
 * writer_plain.c
 *	  What lets the writer put a row into a table without a statement
 *	  (writer_profile_row.c, writer_set_row.c): nothing that an INSERT
 *	  would do beyond writing the heap and its indexes.
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "store/store.h"
#include "writer/writer_internal.h"

bool
writer_fires_on_insert(const TriggerDesc *triggers)
{
	return triggers != NULL &&
		(triggers->trig_insert_before_row || triggers->trig_insert_after_row ||
		 triggers->trig_insert_instead_row || triggers->trig_insert_before_statement ||
		 triggers->trig_insert_after_statement || triggers->trig_insert_new_table);
}

bool
writer_insert_needs_statement(Relation rel)
{
	return rel->rd_rules != NULL ||
		check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED ||
		calltree_citus_table(RelationGetRelid(rel), NULL) != CITUS_NONE;
}
