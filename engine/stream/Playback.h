// The sequence clock: which frame of a volumetric video is shown, from wall time at a speed
// (0.1×–8×) or one frame per rendered frame ("every frame"), looping, bouncing (ping-pong) or
// stopping at the end; play, pause, scrub, step, jump; and the frames the streamer should load
// next. Pure logic, no threads, no GL.
#pragma once

#include <vector>

#include "engine/core/EnumTable.h"

namespace tandem::stream {

enum class LoopMode {
    Loop,     ///< after the last frame, the first
    PingPong, ///< back and forth
    Once,     ///< stop (pause) on the last frame
};
/// --loop's values; L cycles through them in this order.
inline constexpr EnumTable<LoopMode, 3> LoopModes{
    "loop mode",
    {{{LoopMode::Loop, "loop", "after the last frame, the first"},
      {LoopMode::PingPong, "ping-pong", "back and forth"},
      {LoopMode::Once, "once", "stop on the last frame"}}}};

class Playback {
public:
    /// A clock over `frameCount` frames (≥ 1) at `fps`, playing from frame 0 at 1×.
    Playback(int frameCount, double fps);

    void play();
    void pause();
    void togglePlay();
    bool isPlaying() const { return m_playing; }

    /// Speed factor, clamped to [MinSpeed, MaxSpeed].
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    /// The next preset speed up or down (0.1, 0.25, 0.5, 1, 2, 4, 8).
    void faster();
    void slower();
    /// One sequence frame per advance() while playing, whatever the time (headless renders,
    /// "every frame" in the viewer).
    void setEveryFrame(bool everyFrame) { m_everyFrame = everyFrame; }
    bool isEveryFrame() const { return m_everyFrame; }

    void setLoopMode(LoopMode mode) { m_mode = mode; }
    LoopMode loopMode() const { return m_mode; }

    /// Shows `frame` (clamped), keeping play/pause: the timeline slider.
    void seek(int frame);
    /// Pauses and moves `delta` frames (clamped at the ends, wrapped when looping).
    void step(int delta);
    void toStart();
    void toEnd();

    /// Moves the clock on by `seconds` of wall time while playing (every frame: one frame) and
    /// returns the frame to show.
    int advance(double seconds);

    /// The frame shown.
    int frame() const;
    /// The sequence time of the frame shown, seconds.
    double time() const { return frame() / m_fps; }
    int frameCount() const { return m_count; }
    double fps() const { return m_fps; }
    /// +1 forwards, -1 backwards (ping-pong on its way back).
    int direction() const { return m_direction; }

    /// The frame shown and the `count` - 1 after it in playing order (wrapping or bouncing as
    /// the mode says; fewer at the end of a Once sequence): what to load next.
    std::vector<int> upcoming(int count) const;

    static constexpr double MinSpeed = 0.1;
    static constexpr double MaxSpeed = 8.0;

private:
    /// Brings m_position back into [0, count) by the loop mode.
    void wrap();

    int m_count;
    double m_fps;
    double m_position = 0.0; ///< frames, fractional
    double m_speed = 1.0;
    int m_direction = 1;
    LoopMode m_mode = LoopMode::Loop;
    bool m_playing = true;
    bool m_everyFrame = false;
    bool m_started = false; ///< every frame: the first advance shows frame 0 itself
};

} // namespace tandem::stream
