// The account page names each session's browser the way a person recognises it ("Firefox on Windows"), not by the
// User-Agent header, which is long, and the browser's to make up. Order matters: Edge and Opera say "Chrome" too,
// Chrome says "Safari", Android says "Linux", iPadOS may say "Macintosh".

const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\b(Headless)?Chrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
];

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/\b(iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** How the summary is worded: the page's language (the names of browsers and systems are the same in every one). */
export interface SummaryWords {
  on: (browser: string, system: string) => string;
  unknown: string;
}

const ENGLISH: SummaryWords = { on: (browser, system) => `${browser} on ${system}`, unknown: 'Unknown browser' };

/** "Browser on System", one of the two alone, or "Unknown browser". */
export function userAgentSummary(userAgent: string | null, words: SummaryWords = ENGLISH): string {
  if (!userAgent) return words.unknown;
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return words.on(browser, system);
  return browser ?? system ?? words.unknown;
}
