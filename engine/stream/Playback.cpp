#include "engine/stream/Playback.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tandem::stream {

namespace {

constexpr std::array<double, 7> Presets = {0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0};

} // namespace

Playback::Playback(int frameCount, double fps)
    : m_count(std::max(frameCount, 1)), m_fps(fps > 0.0 ? fps : 30.0)
{}

void Playback::play()
{
    if (m_mode == LoopMode::Once && frame() == m_count - 1 && m_direction > 0)
        m_position = 0.0; // play again from the start
    m_playing = true;
}

void Playback::pause()
{
    m_playing = false;
}

void Playback::togglePlay()
{
    if (m_playing)
        pause();
    else
        play();
}

void Playback::setSpeed(double speed)
{
    m_speed = std::clamp(speed, MinSpeed, MaxSpeed);
}

void Playback::faster()
{
    for (double preset : Presets)
        if (preset > m_speed + 1e-9) {
            m_speed = preset;
            return;
        }
}

void Playback::slower()
{
    for (auto it = Presets.rbegin(); it != Presets.rend(); ++it)
        if (*it < m_speed - 1e-9) {
            m_speed = *it;
            return;
        }
}

void Playback::seek(int frame)
{
    m_position = std::clamp(frame, 0, m_count - 1);
    m_started = true;
}

void Playback::step(int delta)
{
    pause();
    int target = frame() + delta;
    if (m_mode == LoopMode::Loop)
        target = ((target % m_count) + m_count) % m_count;
    seek(target);
}

void Playback::toStart()
{
    seek(0);
}

void Playback::toEnd()
{
    seek(m_count - 1);
}

void Playback::wrap()
{
    const double n = m_count;
    switch (m_mode) {
    case LoopMode::Loop:
        m_position = std::fmod(m_position, n);
        if (m_position < 0.0)
            m_position += n;
        break;
    case LoopMode::PingPong: {
        // Bounce between 0 and n - 1 (a period of 2 (n - 1) frames).
        const double last = n - 1.0;
        if (last <= 0.0) {
            m_position = 0.0;
            break;
        }
        while (m_position > last || m_position < 0.0) {
            if (m_position > last) {
                m_position = 2.0 * last - m_position;
                m_direction = -1;
            } else {
                m_position = -m_position;
                m_direction = 1;
            }
        }
        break;
    }
    case LoopMode::Once:
        if (m_position >= n - 1.0) {
            m_position = n - 1.0;
            m_playing = false;
        } else if (m_position < 0.0) {
            m_position = 0.0;
        }
        break;
    }
}

int Playback::advance(double seconds)
{
    if (!m_playing)
        return frame();
    if (m_everyFrame) {
        if (m_started)
            m_position = std::floor(m_position) + m_direction;
        m_started = true;
    } else {
        m_position += std::max(seconds, 0.0) * m_fps * m_speed * m_direction;
        m_started = true;
    }
    wrap();
    return frame();
}

int Playback::frame() const
{
    return std::clamp(static_cast<int>(std::floor(m_position + 1e-9)), 0, m_count - 1);
}

std::vector<int> Playback::upcoming(int count) const
{
    std::vector<int> frames;
    int f = frame();
    int direction = m_direction;
    for (int i = 0; i < count && static_cast<int>(frames.size()) < m_count; ++i) {
        frames.push_back(f);
        int next = f + direction;
        if (next >= m_count || next < 0) {
            if (m_mode == LoopMode::Loop)
                next = (next + m_count) % m_count;
            else if (m_mode == LoopMode::PingPong && m_count > 1) {
                direction = -direction;
                next = f + direction;
            } else
                break;
        }
        if (std::find(frames.begin(), frames.end(), next) != frames.end())
            break;
        f = next;
    }
    return frames;
}

} // namespace tandem::stream
