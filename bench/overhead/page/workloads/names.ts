/** The workloads of `bench:overhead`, in the order they run; each has a page side here and a driver in ../../workloads. */
export const WORKLOADS = [
  'classic',
  'typing-churn',
  'data-grid',
  'form-flow',
  'spa-routes',
  'infinite-scroll',
  'canvas-animation',
  'heavy-logging',
] as const;
export type Workload = (typeof WORKLOADS)[number];

export const isWorkload = (name: string): name is Workload => (WORKLOADS as readonly string[]).includes(name);
