/** Bench sections contributed by other packages (worker, fake server, telemetry), run after throughput. */
export interface SectionContext {
  quick: boolean;
  messages: number;
  onFreshServer<T>(task: (url: string) => Promise<T>): Promise<T>;
  log(line?: string): void;
}

export interface BenchSection {
  /** Name for `--only` and the JSON report. */
  readonly name: string;
  readonly title: string;
  run(context: SectionContext): Promise<unknown>;
}

export const extraSections: BenchSection[] = [];
