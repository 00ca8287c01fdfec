import { useId, type FormEvent } from 'react';
import { useUrlState } from './url-state';

export type FilterField =
  | { name: string; label: string; kind: 'text' | 'number' | 'search'; placeholder?: string }
  | { name: string; label: string; kind: 'select'; options: ReadonlyArray<{ value: string; label: string }> }
  | { name: string; label: string; kind: 'checkbox' };

/** A select's options from facet values, keeping the URL's value even when the facets no longer list it. */
export function selectOptions(values: readonly string[] | undefined, current: string | null) {
  const all = new Set(values ?? []);
  if (current) all.add(current);
  return [...all].map((v) => ({ value: v, label: v }));
}

/**
 * A list's filters as a form whose values are the URL's: applying writes them to the query (the list reloads from
 * it), so a filtered view is a link. Clearing removes every field of this bar and nothing else.
 */
export function FilterBar({ fields, label }: { fields: readonly FilterField[]; label: string }) {
  const [params, update] = useUrlState();
  const id = useId();
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const patch: Record<string, string | null> = {};
    for (const field of fields) {
      patch[field.name] =
        field.kind === 'checkbox'
          ? form.get(field.name)
            ? 'true'
            : null
          : String(form.get(field.name) ?? '').trim() || null;
    }
    update(patch);
  };
  const clear = () => update(Object.fromEntries(fields.map((f) => [f.name, null])));
  // The form remounts when the URL changes so its inputs show the URL's values (back/forward, a pasted link).
  return (
    <form key={params.toString()} className="filter-bar" role="search" aria-label={label} onSubmit={apply}>
      {fields.map((field) => {
        const inputId = `${id}-${field.name}`;
        const value = params.get(field.name) ?? '';
        return (
          <div key={field.name} className={`field field-${field.kind}`}>
            <label htmlFor={inputId}>{field.label}</label>
            {field.kind === 'select' ? (
              <select id={inputId} name={field.name} defaultValue={value}>
                <option value="">Any</option>
                {field.options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            ) : field.kind === 'checkbox' ? (
              <input id={inputId} name={field.name} type="checkbox" defaultChecked={value === 'true'} />
            ) : (
              <input
                id={inputId}
                name={field.name}
                type={field.kind}
                inputMode={field.kind === 'number' ? 'numeric' : undefined}
                defaultValue={value}
                placeholder={field.placeholder}
              />
            )}
          </div>
        );
      })}
      <div className="filter-actions">
        <button type="submit" className="primary">
          Apply
        </button>
        <button type="button" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
