import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/loader.js';

// The file's own promises, checked without a Docker engine (.ci/container-check runs it for real): the service
// believes X-Forwarded-For from the compose proxy's fixed address and from nothing else, and nginx replaces the
// header instead of appending what the client sent.

const root = join(import.meta.dirname, '..', '..');
const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');

describe('docker-compose.yml: the proxy profile and trustProxy', () => {
  it("TRUST_PROXY is the proxy service's fixed address, inside the network's subnet, and a valid trustProxy", () => {
    // Both come from one variable, with the same default, so that moving the network (issue 33) moves both.
    const trusted = /TRUST_PROXY: \$\{OAUTH_PROXY_ADDRESS:-(\S+)\}/.exec(compose)?.[1];
    const proxyAddress = /ipv4_address: \$\{OAUTH_PROXY_ADDRESS:-(\S+)\}/.exec(compose)?.[1];
    expect(trusted).toBeDefined();
    expect(trusted).toBe(proxyAddress);
    expect(compose).toMatch(/subnet: \$\{OAUTH_SUBNET:-172\.28\.0\.0\/16\}/);
    expect(trusted).toMatch(/^172\.28\./);
    expect(loadConfig({ env: { TRUST_PROXY: trusted } }).trustProxy).toBe(trusted);
  });

  it("nginx sets X-Forwarded-For to the address it saw, never appending the client's own header", () => {
    const nginx = readFileSync(join(root, 'examples', 'compose-proxy', 'nginx.conf'), 'utf8');
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginx).not.toContain('$proxy_add_x_forwarded_for');
    expect(compose).toContain('./examples/compose-proxy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
  });
});
