/**
 * The SDK's reports about itself that the server reads back: the counter of records it lost, one series per `reason`
 * (`queue_full`, `refused`, `outbox_full`, `persist_failed`), a cumulative sum since the SDK started on the page. The
 * console's Ingest health page shows it beside the server's own refusals.
 */
export const DROPPED_ITEMS_METRIC = 'svc.sdk.dropped_items';

/**
 * A metric data point's identity, set by the SDK on every point it records (as `log.record.uid` is on log records):
 * ingest stores a point it already holds once, and keeps the identity out of the point's stored attributes (it is
 * not a dimension of the series).
 */
export const POINT_UID_ATTRIBUTE = 'svc.point.uid';
