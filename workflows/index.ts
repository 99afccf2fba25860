/** Every workflow the worker runs. One file per flow; this list is what the bundler sees. */
export { platformCheck } from './platform-check';
