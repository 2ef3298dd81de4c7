/**
 * `@promptpix/db/testing`: test support only (tests, the bench, @promptpix/testing). Fresh,
 * migrated PostgreSQL and PGlite databases copied from templates built once per run.
 */
export * from './postgres';
export * from './templates';
export * from './both-databases';
