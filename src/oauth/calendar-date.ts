// An ISO 8601 date or instant whose fields name a real moment: JavaScript's Date takes 2027-02-30 as 2 March and
// 24:30 as the next day, so a time an operator mistyped would be kept as another one, unsaid.

const FIELDS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):(\d{2}))?)?$/;

/** Whether the date and time fields of `text` (already of the ISO 8601 form its caller accepts) exist on the calendar. */
export function namesRealMoment(text: string): boolean {
  const match = FIELDS.exec(text);
  if (match === null) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((field) => (field === undefined ? undefined : Number(field)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    offsetHours < 24 &&
    offsetMinutes < 60
  );
}
