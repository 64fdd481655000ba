import { randomUUID } from 'node:crypto';
import { appendFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LogQueue } from '@makerspace/agent';
import type { LogItem } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger, Teardown, tempDir } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

function logItem(n: number): LogItem {
  return {
    kind: 'log',
    id: randomUUID(),
    type: 'allowed',
    createdAt: new Date(1_700_000_000_000 + n).toISOString(),
    notes: `#${n}`,
  };
}

async function openQueue(dir: string, compactAfter?: number) {
  const { logger, lines } = memoryLogger();
  const queue = new LogQueue({ dir, logger, compactAfter });
  await queue.start();
  teardown.add(() => queue.stop());
  return { queue, lines };
}

describe('durable log queue', () => {
  it('keeps items across a reopen, in order, and deletes only acknowledged ones', async () => {
    const dir = await tempDir(teardown);
    const { queue } = await openQueue(dir);
    const items = [1, 2, 3, 4, 5].map(logItem);
    for (const item of items) await queue.append(item);
    expect(await queue.ack([items[1].id, items[3].id, randomUUID()])).toBe(2);
    await queue.stop();

    const { queue: reopened } = await openQueue(dir);
    expect(reopened.pending().map((i) => i.id)).toEqual([items[0].id, items[2].id, items[4].id]);
    const more = logItem(6);
    await reopened.append(more);
    expect(reopened.pending().map((i) => i.id)).toEqual([items[0].id, items[2].id, items[4].id, more.id]);
  });

  it('tolerates a torn last line and appends cleanly after it', async () => {
    const dir = await tempDir(teardown);
    const { queue } = await openQueue(dir);
    const first = logItem(1);
    await queue.append(first);
    await queue.stop();
    const file = join(dir, 'queue.jsonl');
    // Power lost in the middle of the next append.
    const torn = JSON.stringify({ add: logItem(2) }).slice(0, 40);
    await appendFile(file, torn);

    const { queue: reopened, lines } = await openQueue(dir);
    expect(reopened.pending().map((i) => i.id)).toEqual([first.id]);
    expect(lines().some((l) => String(l.msg).includes('torn'))).toBe(true);
    const third = logItem(3);
    await reopened.append(third);
    await reopened.stop();

    const { queue: again } = await openQueue(dir);
    expect(again.pending().map((i) => i.id)).toEqual([first.id, third.id]);
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain(torn);
  });

  it('skips a corrupt line in the middle without losing the rest', async () => {
    const dir = await tempDir(teardown);
    const a = logItem(1);
    const b = logItem(2);
    await appendFile(
      join(dir, 'queue.jsonl'),
      `${JSON.stringify({ add: a })}\ngarbage\n${JSON.stringify({ add: b })}\n`,
    );
    const { queue, lines } = await openQueue(dir);
    expect(queue.pending().map((i) => i.id)).toEqual([a.id, b.id]);
    expect(lines().some((l) => l.level === 50)).toBe(true);
  });

  it('refuses invalid items instead of writing them', async () => {
    const dir = await tempDir(teardown);
    const { queue } = await openQueue(dir);
    await expect(queue.append({ ...logItem(1), id: 'nope' } as LogItem)).rejects.toThrow();
    expect(queue.size).toBe(0);
  });

  it('compacts the journal once it is mostly acknowledged items', async () => {
    const dir = await tempDir(teardown);
    const { queue } = await openQueue(dir, 10);
    const items = Array.from({ length: 20 }, (_, n) => logItem(n));
    for (const item of items) await queue.append(item);
    const file = join(dir, 'queue.jsonl');
    const before = (await stat(file)).size;
    await queue.ack(items.slice(0, 18).map((i) => i.id));
    const after = (await stat(file)).size;
    expect(after).toBeLessThan(before / 4);
    await queue.append(logItem(99));
    await queue.stop();
    const { queue: reopened } = await openQueue(dir);
    expect(reopened.pending().map((i) => (i.kind === 'log' ? i.notes : i.kind))).toEqual([
      '#18',
      '#19',
      '#99',
    ]);
  });

  it('tells listeners after each durable append', async () => {
    const dir = await tempDir(teardown);
    const { queue } = await openQueue(dir);
    let calls = 0;
    queue.onAppend(() => calls++);
    await queue.append(logItem(1));
    await queue.append(logItem(2));
    expect(calls).toBe(2);
  });
});
