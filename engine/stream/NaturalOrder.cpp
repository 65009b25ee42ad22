#include "engine/stream/NaturalOrder.h"

#include <cstddef>

namespace tandem::stream {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

unsigned char folded(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u >= 'A' && u <= 'Z' ? static_cast<unsigned char>(u - 'A' + 'a') : u;
}

/// The digit run starting at `s[i]`: where it ends and where its leading zeros end.
struct DigitRun {
    std::size_t end;
    std::size_t significant; ///< first non-zero digit, or end for a run of zeros
};

DigitRun digitRun(std::string_view s, std::size_t i)
{
    std::size_t significant = i;
    while (significant < s.size() && s[significant] == '0')
        ++significant;
    std::size_t end = significant;
    while (end < s.size() && isDigit(s[end]))
        ++end;
    return {end, significant};
}

} // namespace

bool naturalLess(std::string_view a, std::string_view b)
{
    std::size_t i = 0, j = 0;
    // Rule 2's verdict, from the first pair of equal runs whose leading zeros differ.
    int zerosVerdict = 0;
    while (i < a.size() && j < b.size()) {
        if (isDigit(a[i]) && isDigit(b[j])) {
            const DigitRun ra = digitRun(a, i);
            const DigitRun rb = digitRun(b, j);
            const std::size_t lengthA = ra.end - ra.significant;
            const std::size_t lengthB = rb.end - rb.significant;
            // More significant digits, larger value; as many, the digits decide.
            if (lengthA != lengthB)
                return lengthA < lengthB;
            const int digits =
                a.substr(ra.significant, lengthA).compare(b.substr(rb.significant, lengthB));
            if (digits != 0)
                return digits < 0;
            const std::size_t zerosA = ra.significant - i;
            const std::size_t zerosB = rb.significant - j;
            if (zerosVerdict == 0 && zerosA != zerosB)
                zerosVerdict = zerosA < zerosB ? -1 : 1;
            i = ra.end;
            j = rb.end;
            continue;
        }
        // At most one side is at a digit run; it compares as its first digit would, and since
        // the other byte is no digit, any digit gives the same answer.
        const unsigned char ca = folded(a[i]);
        const unsigned char cb = folded(b[j]);
        if (ca != cb)
            return ca < cb;
        ++i;
        ++j;
    }
    const bool aEnded = i == a.size();
    const bool bEnded = j == b.size();
    if (aEnded != bEnded)
        return aEnded;
    if (zerosVerdict != 0)
        return zerosVerdict < 0;
    return a < b;
}

} // namespace tandem::stream
