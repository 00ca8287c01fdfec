/**
 * Tables of migration 0031-summaries (a type, not an interface: the Database interface extends it): the page paths the
 * sessions showed, kept by both writers with the sessions' facts, so "URL contains" reads the few matching paths and
 * then their sessions through an index instead of every session's list of pages.
 */
export type SessionPageTables = {
  /** Each distinct path of the project once: the small table a "contains" pattern is matched against. */
  page_paths: { project_id: string; path: string };
  /** Each path a session showed (every one a batch named, also past the session's bounded `urls` list). */
  session_pages: {
    project_id: string;
    path: string;
    session_id: string;
    /** Latest receipt of a batch that named the pair: retention deletes the pair with the session's records. */
    received_ms: number;
  };
};
