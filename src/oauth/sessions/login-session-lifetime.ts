// How long a login session lives, on its own so that the cleanup's policy and the session cookie can read it without
// importing the sessions' domain (which depends on the stores the cleanup is part of).

/** How long a session holds without being used (the cookie's own lifetime is the same). */
export const LOGIN_SESSION_LIFETIME_SECONDS = 8 * 3600;

/** The instant before which a session unused since has expired. */
export const oldestLive = (now: Date): Date => new Date(now.getTime() - LOGIN_SESSION_LIFETIME_SECONDS * 1000);

/** Whether a session last seen at `lastSeenAt` still holds at `now`. */
export const isLive = ({ lastSeenAt }: { lastSeenAt: Date }, now: Date): boolean => lastSeenAt.getTime() >= oldestLive(now).getTime();
