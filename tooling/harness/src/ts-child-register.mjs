// `node --import` entry of child processes that run TypeScript source: installs ts-child-loader.mjs.
import { register } from 'node:module';

register('./ts-child-loader.mjs', import.meta.url);
