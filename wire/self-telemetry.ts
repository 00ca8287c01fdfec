/**
 * The SDK's reports about itself that the server reads back: the counter of records it lost, one series per `reason`
 * (`queue_full`, `refused`, `outbox_full`, `persist_failed`), a cumulative sum since the SDK started on the page. The
 * console's Ingest health page shows it beside the server's own refusals.
 */
export const DROPPED_ITEMS_METRIC = 'svc.sdk.dropped_items';
