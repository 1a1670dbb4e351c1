import { vi } from 'vitest';

/**
 * Collects what the code under test logs (one JSON line per console.log) instead of printing
 * it; `vi.restoreAllMocks()` ends the capture.
 */
export function captureLogLines(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
    lines.push(String(line));
  });
  return lines;
}
