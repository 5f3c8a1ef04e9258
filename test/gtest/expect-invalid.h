/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_EXPECT_INVALID_H
#define DLNET_EXPECT_INVALID_H

#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>
#include <string>

/// Run f; expect std::invalid_argument whose message contains every needle.
template <typename F>
void
ExpectInvalid(F f, std::initializer_list<std::string> needles)
{
    try
    {
        f();
        ADD_FAILURE() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        for (const auto& n : needles)
        {
            EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
                << "'" << e.what() << "' lacks '" << n << "'";
        }
    }
}

#endif /* DLNET_EXPECT_INVALID_H */
