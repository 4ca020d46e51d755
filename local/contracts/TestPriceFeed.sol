// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title TestPriceFeed
/// @notice A Chainlink-compatible price feed (AggregatorV3Interface) for the local chain: the
///         local run puts it at Chainlink's ETH / USD proxy address on Base, so the service
///         reads the local chain's price exactly as it reads Base's. Its answers are whatever its
///         deployer sets with `setAnswer`; each starts a new round stamped with the block's time.
///         The deployer and the constants live in the code (immutable, constant), so the code
///         placed at another address keeps them; only the rounds are storage.
contract TestPriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint8 public constant decimals = 8;
    string public constant description = "ETH / USD";
    uint256 public constant version = 4;
    address public immutable owner;

    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    error NotOwner();
    error NoDataPresent();

    constructor() {
        owner = msg.sender;
    }

    /// @notice Starts a new round with `answer`, updated at this block's timestamp.
    function setAnswer(int256 answer) external {
        if (msg.sender != owner) revert NotOwner();
        uint80 roundId = latestRound + 1;
        latestRound = roundId;
        rounds[roundId] = Round(answer, block.timestamp, block.timestamp);
        emit NewRound(roundId, msg.sender, block.timestamp);
        emit AnswerUpdated(answer, roundId, block.timestamp);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory round = rounds[roundId];
        if (round.updatedAt == 0) revert NoDataPresent();
        return (roundId, round.answer, round.startedAt, round.updatedAt, roundId);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }
}
