/** `GET /control-plane/setup` (server/src/projects/setup-routes.ts). */
export interface Setup {
  project: { id: string; name: string };
  ingest_url: string;
  ingest_keys: Array<{ id: string; name: string; display_prefix: string; key: string | null; created_at: string; expires_at: string | null }>;
  apps: Array<{ name: string; aliases: string[] }>;
  first_data: FirstData | null;
}

export interface FirstData {
  received_at: string;
  session: { session_id: string; app: string } | null;
}
