import { describe, expect, it } from 'vitest';
import { findTool, toolsOf } from '../../src/registry/index.js';
import { PANE_TOOLS } from '../../src/web/state/pane-tools.js';

describe('the tools the panes drive', () => {
  it('are all in the registry the studio loads (extended)', () => {
    const names = new Set(toolsOf('extended').map((t) => t.name));
    for (const name of Object.values(PANE_TOOLS)) expect(names.has(name), name).toBe(true);
  });

  it('take the parameters the panes send', () => {
    const params = (name: string) => Object.keys(findTool(name)!.parameters.properties);
    expect(params(PANE_TOOLS.selectLayers)).toContain('names');
    for (const name of [PANE_TOOLS.setVisible, PANE_TOOLS.lock, PANE_TOOLS.blendMode, PANE_TOOLS.opacity])
      expect(params(name)).toContain('name');
    expect(params(PANE_TOOLS.setVisible)).toContain('visible');
    expect(params(PANE_TOOLS.lock)).toContain('locked');
    expect(params(PANE_TOOLS.opacity)).toContain('opacity');
    expect(params(PANE_TOOLS.rename)).toEqual(['new_name']);
    expect(params(PANE_TOOLS.undo)).toEqual(['steps']);
    expect(params(PANE_TOOLS.redo)).toEqual(['steps']);
    expect(params(PANE_TOOLS.openDocument)).toContain('path');
    expect(params(PANE_TOOLS.garmentApply)).toEqual(['pieces']);
  });
});
