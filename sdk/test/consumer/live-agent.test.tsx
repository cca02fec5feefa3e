// No LiveKit server can run here: the call is tested against a room double with the Room API the hook uses.
import { useLiveAgent, type LiveAgentRoom } from '@open-oracles/oracles-client-sdk/live-agent';
import { act, renderHook } from '@testing-library/react';
import { RoomEvent } from 'livekit-client';
import { describe, expect, it, vi } from 'vitest';

function roomDouble() {
  const listeners = new Map<string, ((...args: unknown[]) => void)[]>();
  const localParticipant = {
    identity: 'me',
    setMicrophoneEnabled: vi.fn(() => Promise.resolve(undefined)),
    setCameraEnabled: vi.fn(() => Promise.resolve(undefined)),
  };
  const remoteParticipants = new Map<string, { identity: string }>();
  const room = {
    connect: vi.fn(() => Promise.resolve()),
    disconnect: vi.fn(() => Promise.resolve()),
    setE2EEEnabled: vi.fn(() => Promise.resolve()),
    on: vi.fn((event: string, cb: (...args: unknown[]) => void) => {
      listeners.set(event, [...(listeners.get(event) ?? []), cb]);
      return room;
    }),
    off: vi.fn(() => room),
    localParticipant,
    remoteParticipants,
  };
  const fire = (event: string, ...args: unknown[]) => listeners.get(event)?.forEach((cb) => cb(...args));
  return { room, fire, remoteParticipants, localParticipant };
}

describe('useLiveAgent', () => {
  it('joins an end-to-end encrypted room, publishes the microphone and tracks participants and state', async () => {
    const double = roomDouble();
    const createRoom = vi.fn((_options: unknown) => double.room as unknown as LiveAgentRoom);
    const worker = {} as Worker;
    const { result } = renderHook(() => useLiveAgent({ createE2EEWorker: () => worker, createRoom }));
    expect(result.current.state).toBe('idle');
    await act(() =>
      result.current.connect({
        serverUrl: 'wss://live.test',
        participantToken: 'tok',
        e2eeKey: 'shared-secret',
      }),
    );
    expect(result.current.error).toBeUndefined();
    expect(result.current.state).toBe('connected');
    const options = createRoom.mock.calls[0]?.[0] as {
      e2ee: { worker: Worker; keyProvider: unknown };
    };
    expect(options.e2ee.worker).toBe(worker);
    expect(options.e2ee.keyProvider).toBeDefined();
    expect(double.room.setE2EEEnabled).toHaveBeenCalledWith(true);
    expect(double.room.setE2EEEnabled.mock.invocationCallOrder[0]).toBeLessThan(
      double.room.connect.mock.invocationCallOrder[0] ?? 0,
    );
    expect(double.room.connect).toHaveBeenCalledWith('wss://live.test', 'tok');
    expect(double.localParticipant.setMicrophoneEnabled).toHaveBeenCalledWith(true);
    expect(result.current.isMicrophoneEnabled).toBe(true);

    act(() => {
      double.remoteParticipants.set('agent', { identity: 'oracle-agent' });
      double.fire(RoomEvent.ParticipantConnected);
      double.fire(RoomEvent.ParticipantEncryptionStatusChanged, true, double.localParticipant);
      double.fire(RoomEvent.Reconnecting);
    });
    expect(result.current.participants).toEqual(['oracle-agent']);
    expect(result.current.isEncrypted).toBe(true);
    expect(result.current.state).toBe('reconnecting');
    act(() => double.fire(RoomEvent.Reconnected));
    expect(result.current.state).toBe('connected');

    await act(() => result.current.setMicrophoneEnabled(false));
    expect(result.current.isMicrophoneEnabled).toBe(false);
    await act(() => result.current.disconnect());
    expect(double.room.disconnect).toHaveBeenCalled();
    expect(result.current.state).toBe('disconnected');
  });

  it('reports a failed join as error and leaves the room', async () => {
    const double = roomDouble();
    double.room.connect.mockRejectedValueOnce(new Error('could not establish signal connection'));
    const { result } = renderHook(() =>
      useLiveAgent({
        createE2EEWorker: () => ({}) as Worker,
        createRoom: () => double.room,
      }),
    );
    await act(() =>
      result.current.connect({ serverUrl: 'wss://live.test', participantToken: 'tok', e2eeKey: 'k' }),
    );
    expect(result.current.state).toBe('error');
    expect(result.current.error?.message).toBe('could not establish signal connection');
    expect(double.room.disconnect).toHaveBeenCalled();
  });
});
