// `import lab from 'node-deploy-lab'` or `import { capacity } from 'node-deploy-lab'`: the same
// functions as require gives (./index.js).
import { createRequire } from 'node:module';

const lab = createRequire(import.meta.url)('./index.js');

export const { scenario, capacity, signal, choose, study, characterize, compare, down } = lab;
export default lab;
