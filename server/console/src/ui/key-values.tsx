import './key-values.css';

/** Names and their values as a two-column table (names as row headers), or the `none` note when there are none. */
export function KeyValues({
  caption,
  entries,
  none,
}: {
  caption: string;
  entries: ReadonlyArray<readonly [string, string]>;
  none: string;
}) {
  if (entries.length === 0) return <p className="hint">{none}</p>;
  return (
    <table className="kv">
      <caption className="visually-hidden">{caption}</caption>
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
