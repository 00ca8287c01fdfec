/** The recorded page's address at the playback time, as a browser's address bar would show it. */
export function UrlBar({ url }: { url: string | undefined }) {
  return (
    <div className="url-bar">
      <span className="url-label" id="replay-url-label">
        Page
      </span>
      <output className="mono" aria-labelledby="replay-url-label" data-testid="replay-url">
        {url ?? 'unknown (the recording has no page address)'}
      </output>
    </div>
  );
}
