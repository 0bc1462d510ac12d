import type { MigrationUp } from './columns.js';

/**
 * A workflow's steps (fetch each source, transform, assemble, store), each with its state, timing
 * and output, so that a workflow taken again after a crash resumes after its last finished step.
 */
export const up: MigrationUp = async (db) => {
  await db.schema
    .createTable('workflow_steps')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('step_index', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('workflow_steps_pk', ['job_id', 'step_index'])
    .execute();
};
