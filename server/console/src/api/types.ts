/** `GET /control-plane/me`: who the key belongs to and what the server can do; the console signs in with it. */
export interface Me {
  project: { id: string; name: string };
  key: { id: string; name: string | null; scope: string; expires_at: string | null };
  features: { ai_analysis: boolean; github: boolean; demo: boolean };
  apps: Array<{ id: string; name: string }>;
}

/** Whether the signed-in key may change things (a `read` key only looks). */
export const canWrite = (me: Me) => me.key.scope !== 'read';
