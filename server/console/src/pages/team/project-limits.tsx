import { useId, useState } from 'react';
import { useMe } from '../../auth/me-context';

/** How a member's projects read: every project, or the names of those they are limited to. */
export function projectsText(projects: readonly string[] | null, names: ReadonlyMap<string, string>): string {
  if (projects === null) return 'All projects';
  if (projects.length === 0) return 'No project';
  return projects.map((id) => names.get(id) ?? id).join(', ');
}

/** The projects of the organisation by id, for showing a member's limits by name. */
export function useProjectNames(): ReadonlyMap<string, string> {
  const me = useMe();
  return new Map(me.projects.map((p) => [p.id, p.name]));
}

/**
 * The projects a member is limited to, as checkboxes: none checked means every project (null). `onSave` gets the
 * choice; read-only when `onSave` is absent.
 */
export function ProjectLimits({
  who,
  projects,
  onSave,
}: {
  who: string;
  projects: readonly string[] | null;
  onSave?: (projects: string[] | null) => void;
}) {
  const me = useMe();
  const id = useId();
  const names = useProjectNames();
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set(projects ?? []));
  if (!onSave) return <span>{projectsText(projects, names)}</span>;
  const toggle = (project: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(project);
    else next.delete(project);
    setChosen(next);
  };
  return (
    <details className="project-limits">
      <summary aria-label={`Projects of ${who}: ${projectsText(projects, names)}`}>
        {projectsText(projects, names)}
      </summary>
      <fieldset>
        <legend>Limit {who} to (none: every project)</legend>
        {me.projects.map((p) => (
          <label key={p.id} htmlFor={`${id}-${p.id}`}>
            <input
              id={`${id}-${p.id}`}
              type="checkbox"
              checked={chosen.has(p.id)}
              onChange={(e) => toggle(p.id, e.currentTarget.checked)}
            />{' '}
            {p.name}
          </label>
        ))}
        <button type="button" onClick={() => onSave(chosen.size === 0 ? null : [...chosen])}>
          Save projects
        </button>
      </fieldset>
    </details>
  );
}
