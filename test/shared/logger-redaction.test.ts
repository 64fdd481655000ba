import { Writable } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import { describe, expect, it } from 'vitest';

function capture() {
  const lines: any[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: createLogger({ name: 't', level: 'info', destination }) };
}

describe('log redaction', () => {
  it('shows error codes and hides secrets', () => {
    const { lines, logger } = capture();
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1883'), { code: 'ECONNREFUSED' });
    logger.warn({ err, code: err.code }, 'hub link error');
    logger.info(
      {
        token: 't-1',
        apiKey: 'k-1',
        switchOnCode: 'ABCDEF',
        body: { code: 'XYZ123' },
        req: { headers: { authorization: 'Bearer t-2' }, body: { code: 'QWE' } },
        bridge: { apiKey: 'k-2', secret: 's' },
      },
      'secrets',
    );
    expect(lines[0].code).toBe('ECONNREFUSED');
    expect(lines[0].err.code).toBe('ECONNREFUSED');
    const text = JSON.stringify(lines[1]);
    for (const secret of ['t-1', 'k-1', 'ABCDEF', 'XYZ123', 'QWE', 'Bearer t-2', 'k-2', '"s"'])
      expect(text).not.toContain(secret);
  });
});
