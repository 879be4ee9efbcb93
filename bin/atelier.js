#!/usr/bin/env node
import { ranWithFewArenas } from '../dist/cli/few-arenas.js';

if (!(await ranWithFewArenas())) await import('../dist/cli/main.js');
