// The part of the native `libpq` package (brianc/node-libpq) that ic uses: its synchronous calls.
declare module 'libpq' {
  class PQ {
    connectSync(conninfo?: string): void;
    finish(): void;
    errorMessage(): string;
    serverVersion(): number;
    transactionStatus(): number;
    exec(sql: string): void;
    execParams(sql: string, params: (string | null)[]): void;
    prepare(name: string, sql: string, nParams: number): void;
    execPrepared(name: string, params: (string | null)[]): void;
    resultStatus(): string;
    resultErrorMessage(): string | null;
    resultErrorFields(): Record<string, string | undefined> | null;
    ntuples(): number;
    nfields(): number;
    fname(field: number): string;
    ftype(field: number): number;
    getvalue(row: number, field: number): string;
    getisnull(row: number, field: number): boolean;
    cmdTuples(): string;
    clear(): void;
  }
  export = PQ;
}
