import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { useUrlState } from './url-state';
import './tabs.css';

export interface Tab {
  id: string;
  label: string;
  count?: number;
  panel: () => ReactNode;
}

/**
 * An ARIA tablist whose selected tab is the URL parameter `param` (the first tab when absent, which leaves it out), so
 * a link opens the same tab. Arrow keys (and Home/End) move between tabs and select them; only the selected tab is a
 * Tab stop. `clear` names parameters that belong to a tab's view and are dropped when the tab changes; `replace`
 * changes the tab without a history entry.
 */
export function Tabs({
  label,
  param,
  tabs,
  clear = [],
  replace = false,
  className,
}: {
  label: string;
  param: string;
  tabs: readonly Tab[];
  clear?: readonly string[];
  replace?: boolean;
  className?: string;
}) {
  const [params, update] = useUrlState();
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((t) => t.id === params.get(param)) ?? tabs[0]!;
  const select = (tab: Tab) =>
    update(
      { [param]: tab === tabs[0] ? null : tab.id, ...Object.fromEntries(clear.map((name) => [name, null])) },
      { replace },
    );
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.indexOf(current);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length]!;
    select(tab);
    list.current?.querySelector<HTMLElement>(`#tab-${tab.id}`)?.focus();
  };
  return (
    <div className={className ? `tabs ${className}` : 'tabs'}>
      <div role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.id}
            id={`tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t === current}
            aria-controls={`panel-${t.id}`}
            tabIndex={t === current ? 0 : -1}
            onClick={() => select(t)}
          >
            {t.label}
            {t.count !== undefined && <span className="count">{t.count}</span>}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${current.id}`} aria-labelledby={`tab-${current.id}`} className="tab-panel">
        {current.panel()}
      </div>
    </div>
  );
}
