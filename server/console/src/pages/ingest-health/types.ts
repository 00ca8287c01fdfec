/** `GET /control-plane/ingest/health` (server/src/ingest/health-routes.ts). */
export interface IngestHealth {
  window: { from: string; to: string };
  refusals: Refusal[];
  unattributed: Refusal[] | null;
  sdk_drops: SdkDrop[];
}

export interface Refusal {
  reason: string;
  status: number;
  count: number;
  last_at: string;
  example: {
    at: string;
    status: number;
    code: string;
    message: string;
    method: string;
    path: string;
    origin: string | null;
    user_agent: string | null;
    content_type: string | null;
    content_encoding: string | null;
    content_length: number | null;
    key: { state: string; marker?: string | null; id?: string; name?: string; scope?: string };
  };
}

export interface SdkDrop {
  app: string;
  reason: string;
  count: number;
  sessions: number;
}
