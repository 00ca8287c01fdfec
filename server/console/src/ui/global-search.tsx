import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { parseResponse, type InferResponseType } from 'hono/client';
import { ApiError } from '../api/client';
import { searchClient } from '../api/typed';
import { formatTime } from './format';

type SearchMatch = InferResponseType<typeof searchClient.index.$get, 200>['data'][number];

/** Where each kind of match opens: its page, or for a user the sessions filtered to them. */
export function matchHref(m: SearchMatch): string {
  const id = encodeURIComponent(m.id);
  return m.kind === 'user' ? `/sessions?user_id=${id}` : `/${m.kind}/${id}`;
}

type Answer = { q: string; matches: SearchMatch[] } | { q: string; error: string };

/**
 * The header's search box: an id pasted from a log, a ticket or an alert (session, trace, issue, incident, user) opens
 * what it names at once when one object has it; several matches are listed to choose from, none is said so.
 */
export function GlobalSearch() {
  const inputId = useId();
  const resultsId = useId();
  const [, navigate] = useLocation();
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const q = input.current?.value.trim() ?? '';
    if (q === '') return;
    setBusy(true);
    try {
      const { data } = await parseResponse(searchClient.index.$get({ query: { q } }));
      if (data.length === 1) {
        setAnswer(undefined);
        if (input.current) input.current.value = '';
        navigate(matchHref(data[0]!));
      } else setAnswer({ q, matches: data });
    } catch (error) {
      setAnswer({ q, error: error instanceof ApiError ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && answer) {
      setAnswer(undefined);
      input.current?.focus();
    }
  };

  return (
    <form
      role="search"
      aria-label="Find by id"
      className="global-search"
      onSubmit={(e) => void submit(e)}
      onKeyDown={onKeyDown}
    >
      <label htmlFor={inputId} className="visually-hidden">
        Find by id: session, trace, issue, incident or user
      </label>
      <input
        id={inputId}
        ref={input}
        type="search"
        placeholder="Find by id…"
        autoComplete="off"
        spellCheck={false}
        aria-describedby={answer ? resultsId : undefined}
      />
      <button type="submit" disabled={busy}>
        Find
      </button>
      {/* A polite live region that is always there (so what fills it is announced), not a second "status" on every page. */}
      <div id={resultsId} className={answer ? 'search-results' : 'visually-hidden'} aria-live="polite">
        {answer && 'error' in answer && <p className="state-error">{answer.error}</p>}
        {answer && 'matches' in answer && answer.matches.length === 0 && (
          <p>Nothing in this project has the id “{answer.q}”.</p>
        )}
        {answer && 'matches' in answer && answer.matches.length > 1 && (
          <>
            <p>
              {answer.matches.length} objects have the id “{answer.q}”:
            </p>
            <ul>
              {answer.matches.map((m) => (
                <li key={`${m.kind} ${m.id}`}>
                  <Link href={matchHref(m)} onClick={() => setAnswer(undefined)}>
                    {m.title}
                  </Link>
                  {m.at && <span className="hint"> · {formatTime(m.at)}</span>}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </form>
  );
}
