// The part of node-postgres (`pg`) that ic's driver uses (session.ts).
declare module 'pg' {
  import type { EventEmitter } from 'node:events';
  import type { Duplex } from 'node:stream';
  export interface ClientConfig {
    host?: string;
    port?: number;
    user?: string;
    password?: string;
    database?: string;
    options?: string;
    application_name?: string;
    connectionTimeoutMillis?: number;
    ssl?: false | Record<string, unknown>;
    // Queries written without waiting for the previous one's reply (pg 8.23).
    pipeline?: boolean;
    [key: string]: unknown;
  }
  export interface FieldDef {
    name: string;
    dataTypeID: number;
  }
  export interface QueryResult {
    fields: FieldDef[];
    rows: unknown[][];
    rowCount: number | null;
    command: string;
  }
  export interface QueryConfig {
    text: string;
    values?: readonly (string | null)[];
    rowMode: 'array';
    types: { getTypeParser: () => (value: string) => string };
  }
  export class Client extends EventEmitter {
    constructor(config: ClientConfig);
    connect(): Promise<void>;
    query(config: QueryConfig): Promise<QueryResult | QueryResult[]>;
    end(): Promise<void>;
    readonly connection: EventEmitter & { stream: Duplex & { unref?(): void } };
  }
}
