// A broadcast channel between the processes of one deployment: chat events reach the sockets of every process.

export interface ChatChannel {
  /** Sends `message` to every process subscribed, this one included; throws when the channel cannot be reached. */
  publish(message: string): Promise<void>;
  start(): Promise<void>;
  /** Resolves once this process hears nothing more. */
  stop(): Promise<void>;
}
