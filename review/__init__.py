"""The volunteers' part: the review log of turns, passengers' feedback, judgements and their export."""
