import { useCallback, useEffect, useRef, useState } from 'react';
import type { Room } from 'livekit-client';

/** Connection state of a live-agent call. */
export type LiveAgentState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'disconnected' | 'error';

/**
 * The part of a LiveKit `Room` this hook uses (a real `Room`, or a test double). Declared here rather than
 * taken from livekit-client, so apps that never make calls do not compile livekit-client's declarations.
 */
export interface LiveAgentRoom {
  connect(url: string, token: string): Promise<void>;
  disconnect(): Promise<void>;
  setE2EEEnabled(enabled: boolean): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- LiveKit's typed emitter, seen from outside
  on(event: string, listener: (...args: any[]) => void): unknown;
  localParticipant: {
    setMicrophoneEnabled(enabled: boolean): Promise<unknown>;
    setCameraEnabled(enabled: boolean): Promise<unknown>;
  };
  remoteParticipants: ReadonlyMap<string, { identity: string }>;
}

/** The options the hook creates its room with (livekit-client's `RoomOptions`, the fields set here). */
export interface LiveAgentRoomOptions {
  adaptiveStream: boolean;
  dynacast: boolean;
  /** `keyProvider` is livekit-client's `ExternalE2EEKeyProvider`. */
  e2ee: { keyProvider: unknown; worker: Worker };
}

/** Where and how to join the call. */
export interface LiveAgentConnectArgs {
  /** The LiveKit server URL (`wss://…`). */
  serverUrl: string;
  /** The participant access token the oracle issued for this call. */
  participantToken: string;
  /** The shared end-to-end encryption key of the call (media is encrypted in the browser). */
  e2eeKey: string | ArrayBuffer;
  /** Publish the microphone on join (default true). */
  audio?: boolean;
  /** Publish the camera on join (default false). */
  video?: boolean;
}

/** Options of {@link useLiveAgent}. */
export interface UseLiveAgentOptions {
  /**
   * Creates LiveKit's E2EE worker, e.g.
   * `() => new Worker(new URL('livekit-client/e2ee-worker', import.meta.url), { type: 'module' })`.
   */
  createE2EEWorker: () => Worker;
  /** Creates the room (tests pass a double); default `new Room(options)` from livekit-client. */
  createRoom?: (options: LiveAgentRoomOptions) => LiveAgentRoom | Promise<LiveAgentRoom>;
}

/** What {@link useLiveAgent} returns. */
export interface UseLiveAgentResult {
  state: LiveAgentState;
  error: Error | undefined;
  /** True once media encryption is on for the call. */
  isEncrypted: boolean;
  isMicrophoneEnabled: boolean;
  isCameraEnabled: boolean;
  /** Identities of the other participants (the agent among them). */
  participants: string[];
  connect: (args: LiveAgentConnectArgs) => Promise<void>;
  disconnect: () => Promise<void>;
  setMicrophoneEnabled: (enabled: boolean) => Promise<void>;
  setCameraEnabled: (enabled: boolean) => Promise<void>;
}

/**
 * An end-to-end encrypted voice and video call with a live agent, through LiveKit (livekit-client, loaded
 * on first connect). Encryption is not optional: `connect` needs the call's key and the hook an E2EE worker.
 *
 * @example
 * const call = useLiveAgent({
 *   createE2EEWorker: () => new Worker(new URL('livekit-client/e2ee-worker', import.meta.url), { type: 'module' }),
 * });
 * await call.connect({ serverUrl, participantToken, e2eeKey });
 */
export function useLiveAgent(options: UseLiveAgentOptions): UseLiveAgentResult {
  const opts = useRef(options);
  opts.current = options;
  const room = useRef<LiveAgentRoom | null>(null);
  const [state, setState] = useState<LiveAgentState>('idle');
  const [error, setError] = useState<Error | undefined>();
  const [isEncrypted, setEncrypted] = useState(false);
  const [isMicrophoneEnabled, setMic] = useState(false);
  const [isCameraEnabled, setCam] = useState(false);
  const [participants, setParticipants] = useState<string[]>([]);

  const disconnect = useCallback(async () => {
    const r = room.current;
    room.current = null;
    if (r) await r.disconnect();
    setState((s) => (s === 'idle' ? s : 'disconnected'));
    setEncrypted(false);
    setMic(false);
    setCam(false);
    setParticipants([]);
  }, []);

  const connect = useCallback(async (args: LiveAgentConnectArgs) => {
    setError(undefined);
    setState('connecting');
    try {
      const lk = await import('livekit-client');
      const keyProvider = new lk.ExternalE2EEKeyProvider();
      const roomOptions = {
        adaptiveStream: true,
        dynacast: true,
        e2ee: { keyProvider, worker: opts.current.createE2EEWorker() },
      } satisfies LiveAgentRoomOptions;
      const r: LiveAgentRoom = opts.current.createRoom
        ? await opts.current.createRoom(roomOptions)
        : (new lk.Room(roomOptions) satisfies Room);
      room.current = r;
      const refresh = () => setParticipants([...r.remoteParticipants.values()].map((p) => p.identity));
      r.on(lk.RoomEvent.ParticipantConnected, refresh);
      r.on(lk.RoomEvent.ParticipantDisconnected, refresh);
      r.on(lk.RoomEvent.Reconnecting, () => setState('reconnecting'));
      r.on(lk.RoomEvent.Reconnected, () => setState('connected'));
      r.on(lk.RoomEvent.Disconnected, () => setState('disconnected'));
      r.on(lk.RoomEvent.ParticipantEncryptionStatusChanged, (enabled: boolean, participant?: unknown) => {
        if (!participant || participant === r.localParticipant) setEncrypted(enabled);
      });
      await keyProvider.setKey(args.e2eeKey);
      await r.setE2EEEnabled(true);
      await r.connect(args.serverUrl, args.participantToken);
      if (args.audio !== false) {
        await r.localParticipant.setMicrophoneEnabled(true);
        setMic(true);
      }
      if (args.video) {
        await r.localParticipant.setCameraEnabled(true);
        setCam(true);
      }
      refresh();
      setState('connected');
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
      setState('error');
      const r = room.current;
      room.current = null;
      await r?.disconnect().catch(() => undefined);
    }
  }, []);

  const setMicrophoneEnabled = useCallback(async (enabled: boolean) => {
    await room.current?.localParticipant.setMicrophoneEnabled(enabled);
    setMic(enabled);
  }, []);
  const setCameraEnabled = useCallback(async (enabled: boolean) => {
    await room.current?.localParticipant.setCameraEnabled(enabled);
    setCam(enabled);
  }, []);

  useEffect(
    () => () => {
      void room.current?.disconnect();
      room.current = null;
    },
    [],
  );

  return {
    state,
    error,
    isEncrypted,
    isMicrophoneEnabled,
    isCameraEnabled,
    participants,
    connect,
    disconnect,
    setMicrophoneEnabled,
    setCameraEnabled,
  };
}
