import { probe } from './load.js';
import type { ServerProcess } from './processes.js';
import type { Scenario } from './scenarios.js';

/**
 * Before any timing: each endpoint answers its expected status and body on both servers, and the baseline
 * answers with the same JSON keys as the service (it must do the same work, not less). Returns problems.
 */
export async function preflight(scenarios: Scenario[], service: ServerProcess, baseline: ServerProcess): Promise<string[]> {
  const problems: string[] = [];
  for (const scenario of scenarios) {
    const keys: Record<string, string> = {};
    for (const server of [service, baseline]) {
      const { status, body } = await probe(server.baseUrl, scenario.probe());
      if (status !== scenario.expectStatus || !body || (scenario.expectBody && !scenario.expectBody(body))) {
        problems.push(`${scenario.name} on ${server.name}: HTTP ${status} ${JSON.stringify(body)}`);
      }
      keys[server.name] = Object.keys(body ?? {})
        .sort()
        .join(',');
    }
    if (keys[service.name] !== keys[baseline.name]) {
      problems.push(`${scenario.name}: the baseline answers keys [${keys[baseline.name]}], the service [${keys[service.name]}]`);
    }
  }
  return problems;
}
