import { describe, expect, it } from 'vitest';
import { commandReach } from '../../../src/core/shell/reach';
import { mayLeaveJob, mayLeaveWorkTree } from '../../../src/hooks/fast/reach';

// Where a command may reach beyond its start directory, and whether it leaves a job behind (issue #34,
// items 3 and 5). The fast path's quick scans must say yes wherever the reader does.

describe('commandReach', () => {
  it.each([
    ['cd ../other && python3 gen.py', ['/w/other'], false],
    ['git -C /repos/b checkout -- x', ['/repos/b'], false],
    ['python3 tool.py ../lib/x.ts', ['/w/lib'], false],
    ['ls src', [], false],
    ['(sleep 2; echo x > held) &', [], true],
    ['nohup npm run watch', [], true],
    ['make 2>&1 | tee log && echo ok', [], false],
    ['cmd &> out.log', [], false],
  ])('%s', (command, dirs, background) => {
    const reach = commandReach(command, '/w/app', '/home/u');
    expect(reach.dirs).toEqual(dirs);
    expect(reach.background).toBe(background);
    if (background) expect(mayLeaveJob(command)).toBe(true);
    if (dirs.length > 0) expect(mayLeaveWorkTree(command)).toBe(true);
  });

  it('the quick scans leave common commands to the fast path', () => {
    for (const command of ['npm test', 'ls src 2>/dev/null', 'grep -r foo src && echo ok', 'make 2>&1 | tail']) {
      expect(mayLeaveJob(command)).toBe(false);
      expect(mayLeaveWorkTree(command)).toBe(false);
    }
  });
});
