/**
 * The issues store: every query of the issues aggregate (detection groups seen as issues and the tables beside them),
 * one module per concern. Routes, pages and the other aggregates (AI, incidents, GitHub, source maps) import it here.
 */
export * from './assignee';
export * from './breadcrumbs';
export * from './breakdown';
export * from './detail';
export * from './facets';
export * from './issues';
export * from './list';
export * from './merge';
export * from './retention';
export * from './sessions';
export * from './status';
export * from './test-runs';
export * from './trends';
