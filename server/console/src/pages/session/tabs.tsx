import { useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface Tab {
  id: string;
  label: string;
  count?: number;
  panel: () => ReactNode;
}

/** An ARIA tablist: arrow keys (and Home/End) move between tabs and select them; only the selected tab is a Tab stop. */
export function Tabs({ label, tabs, selected, onSelect }: { label: string; tabs: readonly Tab[]; selected: string; onSelect: (id: string) => void }) {
  const list = useRef<HTMLDivElement>(null);
  const current = tabs.find((t) => t.id === selected) ?? tabs[0]!;
  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.indexOf(current);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length]!;
    onSelect(tab.id);
    list.current?.querySelector<HTMLElement>(`#tab-${tab.id}`)?.focus();
  };
  return (
    <div className="tabs">
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
            onClick={() => onSelect(t.id)}
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
