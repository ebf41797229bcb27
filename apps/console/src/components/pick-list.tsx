// A filter's pick list: an enumerated API filter offered as its values (never free text), "any" for none.

export function PickList<V extends string>({
  id,
  label,
  value,
  options,
  onChange,
  labelOf,
  anyLabel = 'any',
}: {
  id: string;
  label: string;
  value: V | '';
  options: readonly V[];
  onChange: (value: V | '') => void;
  labelOf?: (value: V) => string;
  anyLabel?: string;
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as V | '')}>
        <option value="">{anyLabel}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {labelOf ? labelOf(o) : o}
          </option>
        ))}
      </select>
    </>
  );
}
