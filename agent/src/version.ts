import { readFileSync } from 'node:fs';

/** The agent's version, from agent/package.json (one directory above both src/ and dist/). */
export function readAgentVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const agentVersion = readAgentVersion();
