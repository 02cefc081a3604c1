// RFC 8693 section 4.1: the act claim, who acts for the token's subject. A token exchanged again by another actor
// nests the earlier actors under act (the current actor outermost); section 4.1 says only the outermost is the one
// to make access decisions on, the rest is history. Stored with the token as JSON (oauth_access_tokens.act).

export interface ActorClaim {
  /** The actor: the user its token is for (the sub its client sees), or the client itself when the token has no user. */
  sub: string;
  /** The client that holds the actor's token and made the exchange. */
  client_id: string;
  /** The earlier actors, when the subject token was itself exchanged for an actor. */
  act?: ActorClaim;
}

// A chain longer than this is refused rather than stored: each exchange adds one level, and nothing needs many.
export const MAX_ACTOR_DEPTH = 5;

export const actorDepth = (act: ActorClaim | null | undefined): number => (act ? 1 + actorDepth(act.act) : 0);

export const actorClaimJson = (act: ActorClaim): string => JSON.stringify(act);

/** The stored column as the claim; null for NULL or for anything this server did not write (never throws). */
export function storedActorClaim(value: string | null): ActorClaim | null {
  if (value === null) return null;
  try {
    return actorClaimOf(JSON.parse(value));
  } catch {
    return null;
  }
}

function actorClaimOf(value: unknown): ActorClaim | null {
  if (typeof value !== 'object' || value === null) return null;
  const { sub, client_id: clientId, act } = value as Record<string, unknown>;
  if (typeof sub !== 'string' || typeof clientId !== 'string') return null;
  const nested = act === undefined ? null : actorClaimOf(act);
  return { sub, client_id: clientId, ...(nested !== null && { act: nested }) };
}
