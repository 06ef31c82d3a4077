// Raw commands answer on the fake server as on the real one.
import { cases } from './cases.js';
import { describeConformance } from './replay.js';

describeConformance('raw command conformance: the fake answers as the real server does', cases);
